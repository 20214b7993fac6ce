package sessiontest

// CheckedUnderRace reports whether item i of a walk over the scenario library is checked in this
// run: every stride-th item under the race detector, whose binary runs Go code several times
// slower, and every item otherwise. It is session's checkedUnderRace (session/sample_test.go) for
// the packages above session: the plain run checks the whole library, and a test that samples is
// named in .ci/run's whole-library step, which runs it again without -race.
func CheckedUnderRace(i, stride int) bool { return !raceDetector || i%stride == 0 }
