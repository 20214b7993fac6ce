//go:build race

package session

// raceDetector is true in a test binary built with -race, which runs Go code several times
// slower: the tests whose cost is in repeating pure work check a sample there.
const raceDetector = true
