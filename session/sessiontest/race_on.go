//go:build race

package sessiontest

// raceDetector is true in a binary built with -race; see CheckedUnderRace.
const raceDetector = true
