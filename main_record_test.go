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

// Every `ward report` format is byte-identical across runs on one database: no row or patient
// follows a map's order.
func TestReportIsByteIdenticalAcrossRuns(t *testing.T) {
	t.Parallel() // commands on files of its own: see TestMain
	db := filepath.Join(t.TempDir(), "ward.db")
	script := "/admit patient_1 asthma-exacerbation\n/admit patient_2 sepsis-urosepsis\n/admit patient_10 hypoglycaemia\n" +
		"check vitals\n/switch patient_1\ncheck vitals\n/diagnosis asthma\n"
	if out, err := ward(t, script, "run", "--db", db, "--backend", "offline", "--new", "--seed", "4", "--trainee", "alice"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, format := range []string{"md", "csv", "json", "xapi"} {
		first := ""
		for run := range 5 {
			out, err := ward(t, "", "report", "--db", db, "--format", format)
			switch {
			case err != nil:
				t.Fatalf("%s: %v\n%s", format, err, out)
			case run == 0:
				first = out
			case out != first:
				t.Fatalf("--format %s differs on run %d:\n%s\nfirst:\n%s", format, run+1, out, first)
			}
		}
	}
}
