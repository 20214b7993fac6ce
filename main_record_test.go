package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// `ward archive show` without --instructor is a trainee's view: the case it holds is masked, as
// in `ward dump`; the instructor sees it.
func TestArchiveShowMasksTheCaseUnlessInstructor(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	script := "/admit patient_1 asthma-exacerbation\ncheck vitals\nclear patient context\n"
	if out, err := ward(t, script, "run", "--db", db, "--backend", "offline", "--new", "--seed", "4"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	trainee, err := ward(t, "", "archive", "show", "1", "--db", db)
	if err != nil || strings.Contains(trainee, "asthma-exacerbation") || !strings.Contains(trainee, `"masked"`) {
		t.Errorf("a trainee's archive show: %v\n%s", err, trainee)
	}
	instructor, err := ward(t, "", "archive", "show", "1", "--db", db, "--instructor")
	if err != nil || !strings.Contains(instructor, "asthma-exacerbation") {
		t.Errorf("the instructor's archive show: %v\n%s", err, instructor)
	}
}
