package records_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/session/sessiontest"
)

// A trainee's dump names neither the case nor its states, nor the true vitals, and says what it
// leaves out; the instructor's holds them all. An archive is masked as the shift is.
func TestATraineesDumpMasksTheEnginesSecrets(t *testing.T) {
	r := sessiontest.Seeded(t)
	for _, line := range []string{"/admit patient_1 anaphylaxis", "what happened?", "/wait 30m", "/clear", "/admit patient_2 anaphylaxis", "/wait 30m"} {
		r.Turn(line)
	}
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := records.Dump(r.Store, lib)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := json.Marshal(doc)
	trainee, _ := json.Marshal(doc.ForTrainee())
	for _, secret := range []string{`"anaphylaxis"`, `Anaphylaxis after`, `"state":"`, `"true_vitals"`, `"stateHistory"`} {
		if !strings.Contains(string(full), secret) {
			t.Errorf("the instructor's dump lacks %s", secret)
		}
		if strings.Contains(string(trainee), secret) {
			t.Errorf("a trainee's dump holds %s", secret)
		}
	}
	if !strings.Contains(string(trainee), "masked in a trainee's view") {
		t.Error("a trainee's dump does not say what it masks")
	}
}
