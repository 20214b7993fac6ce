//go:build !race

package sessiontest

// raceDetector: see race_on.go.
const raceDetector = false
