//go:build !race

package session

// raceDetector: see race_on_test.go.
const raceDetector = false
