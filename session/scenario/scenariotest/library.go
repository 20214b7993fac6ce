// Package scenariotest holds a library of cases for the tests and benchmarks of a full ward,
// which the built-in library alone cannot fill.
package scenariotest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/ward-sim/ward/session/scenario"
)

// FullWard holds enough cases for a shift of 100 patients: a shift never gives two patients the
// same case, and the built-in library has 36 it gives unasked. It is the built-in cases and
// three copies of each under new ids ("asthma-exacerbation-2"), read as a trainee's own
// --scenarios directory is; the copies' files go once the library holds them.
var FullWard = sync.OnceValues(func() (*scenario.Library, error) {
	builtin, err := scenario.Load()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ward-cases-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	idLine := regexp.MustCompile(`(?m)^id: .*$`)
	for _, sc := range builtin.List() {
		data, _, _ := builtin.Source(sc.ID)
		for copy := 2; copy <= 4; copy++ {
			id := fmt.Sprintf("%s-%d", sc.ID, copy)
			if err := os.WriteFile(filepath.Join(dir, id+".yaml"), idLine.ReplaceAll(data, []byte("id: "+id)), 0o600); err != nil {
				return nil, err
			}
		}
	}
	return scenario.Load(dir)
})
