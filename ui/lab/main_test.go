package lab

import (
	"os"
	"testing"

	"github.com/ward-sim/ward/persist"
)

// TestMain wraps passphrases at a cheap cost: the class's tests make encrypted databases and
// guess passphrases by the dozen, and at the recommended cost each derivation takes seconds
// under the race detector. The load tests run the ward binary, which keeps the real cost.
func TestMain(m *testing.M) {
	persist.CheapKDFForTests()
	os.Exit(m.Run())
}
