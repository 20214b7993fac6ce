//go:build race

package ui

// raceDetector is true in a test binary built with -race, which runs Go code several times
// slower: a test that repeats pure, single-goroutine work many times checks a sample there, and
// CI runs it whole without -race (.ci/run, "whole library, without -race").
const raceDetector = true
