//go:build race

package session

// raceDetector is true in a test binary built with -race, which runs Go code several times
// slower: the tests whose cost is in repeating pure work over the whole library check a sample
// there (sample_test.go).
const raceDetector = true
