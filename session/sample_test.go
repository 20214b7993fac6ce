package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tests that repeat the same work over the whole scenario library check a fixed sample under the
// race detector, whose binary runs Go code several times slower: every run checks the same
// items, the plain run (the README's `go test ./...`) checks them all, and CI runs them once more
// without -race (.ci/run, "whole library") so nothing goes unchecked there.
//
// The longest of them, and others as long, also call t.Parallel: this package's binary is the
// last of the suite to finish under -race, running its tests one at a time on one of CI's two
// cores. Only a test that shares nothing may: its own rigs (a store in t.TempDir, the read-only
// library every rig shares), no environment variables, flags, working directory or package
// state, and no measure of allocations or time another test would disturb.

// strideUnderRace is stride under -race and 1 (every item) otherwise.
func strideUnderRace(stride int) int {
	if raceDetector {
		return stride
	}
	return 1
}

// checkedUnderRace reports whether item i of a walk over the library is checked in this run.
func checkedUnderRace(i, stride int) bool { return i%strideUnderRace(stride) == 0 }

// TestCIRunsEverySampledTestWhole: a test that samples under -race, here or in session/live
// (sessiontest.CheckedUnderRace), is named in .ci/run's whole-library step, which runs both
// packages, or CI would only ever see its sample.
func TestCIRunsEverySampledTestWhole(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("*_test.go")
	live, _ := filepath.Glob(filepath.Join("live", "*_test.go"))
	files = append(files, live...)
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || !samples(fn) {
				continue
			}
			if !strings.Contains(string(ci), fn.Name.Name) {
				t.Errorf("%s samples under -race (%s) but .ci/run's whole-library step does not name it", fn.Name.Name, name)
			}
		}
	}
}

// samples reports whether fn calls checkedUnderRace, strideUnderRace or
// sessiontest.CheckedUnderRace.
func samples(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && (id.Name == "checkedUnderRace" || id.Name == "strideUnderRace" || id.Name == "CheckedUnderRace") {
			found = true
		}
		return !found
	})
	return found
}
