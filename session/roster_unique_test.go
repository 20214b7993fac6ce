package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/scenario"
)

// Patients admitted without a scenario each draw one no other patient has, in a bed no other
// has; a scenario already on the roster is refused by name.
func TestPatientsNeverShareAScenarioOrBed(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 acs-sildenafil")
	n := 0 // the scenarios drawn unasked: a cardiac arrest is only ever admitted by name
	for _, s := range r.s.cfg.Scenarios.List() {
		if !slices.Contains(s.Tags, scenario.TagCardiacArrest) {
			n++
		}
	}
	for i := 2; i <= n; i++ {
		r.turn(fmt.Sprintf("/admit patient_%d", i))
	}
	cases, beds := map[string]string{}, map[string]string{}
	for id, p := range r.s.reg.Patients {
		sc, _ := p.Facts["scenario"].(string)
		bed, _ := p.Facts["bed"].(string)
		if other, dup := cases[sc]; dup || sc == "" {
			t.Errorf("%s and %s share scenario %q", id, other, sc)
		}
		if other, dup := beds[bed]; dup || bed == "" {
			t.Errorf("%s and %s share bed %q", id, other, bed)
		}
		cases[sc], beds[bed] = id, id
	}
	if len(cases) != n {
		t.Fatalf("%d patients on the roster, want %d", len(cases), n)
	}
	said := saidText(r.turn(fmt.Sprintf("/admit patient_%d", n+1)))
	if !strings.Contains(said, "on the roster already") {
		t.Errorf("with every case taken, /admit said %q", said)
	}
	said = saidText(r.turn(fmt.Sprintf("/admit patient_%d acs-sildenafil", n+2)))
	if !strings.Contains(said, "another patient of this shift has that case already") {
		t.Errorf("a second patient with the same case: %q", said)
	}
}

// A shift file that asks for a mix starts with the drawn patients on the roster.
func TestShiftWithAMixStarts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mix.yaml")
	if err := os.WriteFile(file, []byte("id: mix\ntitle: Mix\nmix: {count: 3, tags: [respiratory]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRigWith(t, func(c *Config) { c.Shift, c.Seed = file, 7 })
	if got := len(r.s.reg.roster); got != 3 {
		t.Fatalf("roster %v, want 3 drawn patients", r.s.reg.roster)
	}
	for _, id := range r.s.reg.roster {
		sc, _ := r.s.cfg.Scenarios.Get(r.s.reg.Patients[id].Facts["scenario"].(string))
		if !strings.Contains(strings.Join(sc.Tags, " "), "respiratory") {
			t.Errorf("%s drew %s, tagged %v", id, sc.ID, sc.Tags)
		}
	}
}

// /scenarios says which cases a patient of the shift has already.
func TestScenariosSaysWhichAreOnTheRoster(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 hypoglycaemia")
	shown := saidText(r.turn("/scenarios"))
	for i, sc := range r.s.cfg.Scenarios.List() {
		line := fmt.Sprintf("%2d  %s · %s", i+1, sc.Presentation, sc.Difficulty)
		if sc.ID == "hypoglycaemia" {
			line += " · on the roster"
		}
		if !strings.Contains(shown, line+"\n") {
			t.Errorf("/scenarios lacks %q:\n%s", line, shown)
		}
	}
}
