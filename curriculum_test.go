package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/ui"
)

// missOxygenTwice plays two headless shifts for alice in which she gives no oxygen: an asthma
// attack (treated with salbutamol alone) and a pulmonary embolism (only looked at).
func missOxygenTwice(t *testing.T, db string) {
	t.Helper()
	for _, lines := range []string{
		"/admit patient_1 asthma-exacerbation\n/vitals\ngive salbutamol 5 mg nebulised\n/wait 10m\n",
		"/admit patient_1 pulmonary-embolism\n/vitals\n/wait 10m\n",
	} {
		if out, err := ward(t, lines, "run", "--db", db, "--trainee", "alice", "--backend", "offline", "--new"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
}

func progressOf(t *testing.T, db string) records.Progress {
	t.Helper()
	out, err := ward(t, "", "progress", "--db", db, "--trainee", "alice", "--json")
	if err != nil {
		t.Fatalf("progress: %v\n%s", err, out)
	}
	var p records.Progress
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return p
}

// A trainee who failed "oxygen" in two cases is offered, with the reason, a shift whose first
// case asks for it again; `ward run --shift next` starts that shift.
func TestAMissedActionIsOfferedAgainAndTheNextShiftStartsIt(t *testing.T) {
	t.Parallel() // commands on files of its own: see TestMain
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "ward.db")
	missOxygenTwice(t, db)
	table, err := ward(t, "", "progress", "--db", db, "--trainee", "alice")
	reason := `you missed the critical action "oxygen" in 2 case(s) (asthma-exacerbation, pulmonary-embolism); this case asks for it again`
	if err != nil || !strings.Contains(table, "Next shift: ward --shift next") || !strings.Contains(table, reason) {
		t.Fatalf("progress does not offer oxygen again, with the reason (%v):\n%s", err, table)
	}
	next := progressOf(t, db).Next
	if len(next) == 0 || next[0].Action != "oxygen" {
		t.Fatalf("next shift %+v; want oxygen first", next)
	}
	if c, _ := lib.Get(next[0].Scenario); !slices.ContainsFunc(c.CriticalActions, func(a scenario.CriticalAction) bool { return a.ID == "oxygen" }) {
		t.Errorf("%s does not ask for oxygen", next[0].Scenario)
	}
	if out, err := ward(t, "", "run", "--db", db, "--trainee", "alice", "--backend", "offline", "--shift", "next"); err != nil {
		t.Fatalf("ward run --shift next: %v\n%s", err, out)
	}
	shifts := progressOf(t, db).Shifts
	var want []string
	for _, n := range next {
		want = append(want, n.Scenario)
	}
	if got := shifts[len(shifts)-1]; len(shifts) != 3 || got.Shift != records.NextShiftID || !slices.Equal(got.Scenarios(), want) {
		t.Errorf("the shift started holds %v (shift %q); want %v", got.Scenarios(), got.Shift, want)
	}
	// The shift says why, in its own conversation, naming none of its cases.
	dump, err := ward(t, "", "dump", "--db", db, "--trainee", "alice")
	if err != nil || !strings.Contains(dump, "This shift was drawn from your progress") || !strings.Contains(dump, reasonJSON(t, "patient_1: "+reason)) {
		t.Errorf("the shift does not say why it was drawn (%v):\n%.2000s", err, dump)
	}
}

// reasonJSON is s as it reads inside a JSON string.
func reasonJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Trim(string(b), `"`)
}

// With a curriculum set, every case of the next shift comes from it; an unknown entry is refused
// by name and changes nothing; clearing it offers the whole library again.
func TestTheCurriculumBoundsTheNextShift(t *testing.T) {
	t.Parallel() // commands on files of its own: see TestMain
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "ward.db")
	missOxygenTwice(t, db)
	if out, err := ward(t, "", "curriculum", "set", "paediatrics", "eclampsia", "--db", db); err != nil || !strings.Contains(out, "eclampsia") {
		t.Fatalf("curriculum set: %v\n%s", err, out)
	}
	_, err = ward(t, "", "curriculum", "set", "paediatrics", "no-such-case", "--db", db)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), `"no-such-case"`) {
		t.Errorf("an unknown case: exit %d, %v", exitCode(err), err)
	}
	if out, err := ward(t, "", "curriculum", "show", "--db", db); err != nil || !strings.Contains(out, "paediatrics, eclampsia") {
		t.Errorf("the refused set changed the curriculum (%v):\n%s", err, out)
	}
	cases, _ := lib.Curriculum([]string{"paediatrics", "eclampsia"})
	p := progressOf(t, db)
	if len(p.Next) == 0 || p.Next[0].Action != "oxygen" {
		t.Fatalf("next shift %+v; want a curriculum case for oxygen first", p.Next)
	}
	for _, n := range p.Next {
		if !slices.Contains(cases, n.Scenario) {
			t.Errorf("offered %s, outside the curriculum %v", n.Scenario, cases)
		}
	}
	if _, err := ward(t, "", "curriculum", "clear", "--db", db); err != nil {
		t.Fatal(err)
	}
	if p := progressOf(t, db); p.Curriculum != nil {
		t.Errorf("after clear, the progress still has a curriculum: %v", p.Curriculum)
	}
}

// The TUI's start dialog offers alice the same next shift `ward progress` does, for her alone,
// with each patient's reason, before the built-in shifts.
func TestTheStartDialogIsOfferedTheNextShift(t *testing.T) {
	t.Parallel() // commands on files of its own: see TestMain
	db := filepath.Join(t.TempDir(), "ward.db")
	missOxygenTwice(t, db)
	store, err := persist.OpenAs(db, persist.Access{Person: persist.Person{Trainee: "alice"}})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	w, err := wiring(&options{}, store)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := session.NewSetup(context.Background(), store, session.Flags{Backend: "offline", Window: "block"}, w, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	choices, next := ui.StartChoices(setup, false)
	if len(choices) < 1 {
		t.Fatalf("start choices %+v", choices)
	}
	offered, err := next()
	if err != nil || offered == nil {
		t.Fatalf("next shift %+v: %v", offered, err)
	}
	c, want := *offered, progressOf(t, db).Next
	if c.ID != records.NextShiftID || c.Trainee != "alice" || len(c.Reasons) != len(want) || c.Reasons[0] != want[0].Reason ||
		!strings.Contains(c.Reasons[0], `"oxygen" in 2 case(s)`) {
		t.Errorf("offered %+v; want alice's next shift, %+v", c, want)
	}
}
