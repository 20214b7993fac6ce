//go:build !race

package ui

// raceDetector: see race_on_test.go.
const raceDetector = false
