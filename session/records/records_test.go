package records_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/session/sessiontest"
)

// clearTimes clears the rig's shift n times, with something admitted before each clear.
func clearTimes(r *sessiontest.Rig, n int) {
	r.T.Helper()
	for i := 0; i < n; i++ {
		r.Turn("/admit patient_1")
		r.Turn("/clear")
	}
}

func TestArchivesAreNumberedAndFoundByNumberOrPrefix(t *testing.T) {
	r := sessiontest.New(t, func(*session.Config) {})
	clearTimes(r, 3)
	var list bytes.Buffer
	if err := records.ArchiveList(r.Store, &list); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(list.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "  1  ") || !strings.HasPrefix(lines[2], "  3  ") {
		t.Fatalf("archive list:\n%s", list.String())
	}
	entries, err := records.ArchiveEntries(r.Store, r.S.ID())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref     string
		want    int // archive number; 0 for an error
		wantErr string
	}{
		{"2", 2, ""},
		{"#3", 3, ""},
		{entries[0].ID, 1, ""},
		{entries[1].ID[:len(entries[1].ID)-3], 2, ""},
		{"4", 0, `no archive "4"`},
		{"0", 0, `no archive "0"`},
		{"nope", 0, `no archive "nope"`},
		{entries[0].ID[:4], 0, "names 3 archives"},
	}
	for _, tt := range tests {
		got, err := records.FindArchive(entries, tt.ref)
		switch {
		case tt.want != 0 && (err != nil || got.Number != tt.want):
			t.Errorf("%q: archive %d, %v; want %d", tt.ref, got.Number, err, tt.want)
		case tt.want == 0 && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%q: err %v, want one saying %q", tt.ref, err, tt.wantErr)
		}
	}
}

func TestArchiveRestoreByNumberSaysWhereTheOldContentWent(t *testing.T) {
	r := sessiontest.New(t, func(*session.Config) {})
	clearTimes(r, 1)
	r.Turn("/admit patient_2")
	var out bytes.Buffer
	if err := records.ArchiveRestore(r.Store, "1", &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "restored archive 1") || !strings.Contains(got, "archive 2") {
		t.Fatalf("restore said %q", got)
	}
	var show bytes.Buffer
	if err := records.ArchiveShow(r.Store, "2", &show, false); err != nil || !strings.Contains(show.String(), `"patient_2"`) ||
		!strings.Contains(show.String(), `"number": 2`) || !strings.Contains(show.String(), `"scenario"`) {
		t.Fatalf("show 2: %v\n%s", err, show.String())
	}
	if err := records.ArchiveShow(r.Store, "9", &show, false); !errors.Is(err, persist.ErrNotFound) {
		t.Fatalf("show 9: %v", err)
	}
}

// A trainee's `ward archive show` hides the case as their dump does: no scenario, no state, no
// engine snapshot; it says what it masked.
func TestArchiveShowMasksTheCaseForATrainee(t *testing.T) {
	r := sessiontest.New(t, func(*session.Config) {})
	r.Turn("/admit patient_1 asthma-exacerbation")
	r.Turn("check vitals")
	r.Turn("clear patient context")
	var show bytes.Buffer
	if err := records.ArchiveShow(r.Store, "1", &show, true); err != nil {
		t.Fatal(err)
	}
	got := show.String()
	for _, secret := range []string{"asthma-exacerbation", `"state"`, `"sim"`, "stateHistory"} {
		if strings.Contains(got, secret) {
			t.Errorf("the trainee's archive shows %s:\n%s", secret, got)
		}
	}
	if !strings.Contains(got, `"masked": "masked in a trainee's view`) || !strings.Contains(got, `"patient_1"`) {
		t.Errorf("the trainee's archive does not say what it masked, or lost the patient:\n%s", got)
	}
}

func TestExportWritesSpeakersAndTimes(t *testing.T) {
	r := sessiontest.New(t, func(*session.Config) {})
	r.Turn("hello, who is first?")
	r.Turn("review patient_1")
	r.Turn("any allergies?")
	r.Turn("/admit patient_2")
	tr, err := records.Export(r.Store, "patient_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Conversations) != 1 || tr.Conversations[0].PatientID != "patient_1" || tr.Conversations[0].Name == "" {
		t.Fatalf("conversations %+v", tr.Conversations)
	}
	md := tr.Markdown()
	for _, want := range []string{"## patient_1 — ", "**You** · T+00:", "any allergies?", "\n**Patient** · "} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	first := tr.Conversations[0].Messages[0]
	if !strings.Contains(md, first.At.Local().Format("15:04:05")) {
		t.Errorf("markdown lacks the wall-clock time of the first message:\n%s", md)
	}

	whole, err := records.Export(r.Store, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range whole.Conversations {
		ids = append(ids, c.PatientID)
	}
	// The session's own conversation, what was said before a patient was active, comes first.
	if strings.Join(ids, ",") != ",patient_1,patient_2" {
		t.Errorf("the shift's conversations are %q", ids)
	}
	if md := whole.Markdown(); !strings.Contains(md, "## Before any patient was active") {
		t.Errorf("the shift's markdown lacks the session conversation:\n%s", md)
	}
	if _, err := records.Export(r.Store, "patient_9"); err == nil || !strings.Contains(err.Error(), "patient_1") {
		t.Errorf("unknown patient: %v", err)
	}
}

func TestStatsReportHidesInternals(t *testing.T) {
	r := sessiontest.New(t, func(*session.Config) {})
	r.Turn("review patient_1")
	r.Turn("how are you?")
	rep, err := records.ReadStats(r.Store, records.Window{}, records.SeedThresholds)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(rep)
	for _, internal := range []string{"recent_ns", "next", "total_ns"} {
		if bytes.Contains(raw, []byte(internal)) {
			t.Errorf("stats JSON shows %s: %s", internal, raw)
		}
	}
	var table bytes.Buffer
	if err := rep.Table(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"patient", "merges", "merge p95", "total"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

func TestProgressOverSeveralShifts(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := sessiontest.Trainee(t, "alice")
	playAsthma(r, true)
	r.NewShift()
	playAsthma(r, false, true)
	r.NewShift() // a shift with no patient is not one played
	bob := *r
	if err := r.Store.SignIn(persist.Person{Trainee: "bob"}, nil); err != nil {
		t.Fatal(err)
	}
	bob.NewShift()
	playAsthma(&bob, true)
	if err := r.Store.SignIn(persist.Person{Trainee: "alice"}, nil); err != nil {
		t.Fatal(err)
	}

	p, err := records.ReadProgress(r.Store, lib)
	if err != nil {
		t.Fatal(err)
	}
	if p.Trainee != "alice" || len(p.Shifts) != 2 {
		t.Fatalf("alice's progress: %s with %d shifts, want 2 (bob's and the empty one left out)", p.Trainee, len(p.Shifts))
	}
	first, second := p.Shifts[0], p.Shifts[1]
	if !first.Started.Before(second.Started) {
		t.Error("shifts are not oldest first")
	}
	if second.ScorePercent() <= first.ScorePercent() {
		t.Errorf("asking about allergies first did not raise the score: %d%% then %d%%", first.ScorePercent(), second.ScorePercent())
	}
	if met, total := first.CriticalActions(); total == 0 || met == 0 {
		t.Errorf("critical actions %d/%d, want some met", met, total)
	}
	if at, ok := first.ToCritical(); !ok || at != 0 {
		t.Errorf("time to a critical action = %v, %v; want 0 (vitals and oxygen at once)", at, ok)
	}
	if at, ok := second.ToCritical(); !ok || at < 60 {
		t.Errorf("time to a critical action after a minute's wait = %v, %v; want at least 60 s", at, ok)
	}
	var table strings.Builder
	if err := p.Table(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Progress of alice: 2 shift(s), 2 patient(s)", "to critical  scenarios", "Score, 0–100%", "asthma-exacerbation\n",
		"Mean time to a critical action", "\n  2  ████████████████████████████████████████ 01:"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
	if got := said(r.Turn("/progress")); !strings.Contains(got, "Progress of alice: 2 shift(s)") {
		t.Errorf("/progress said:\n%s", got)
	}

	// The instructor's class report has both trainees, one CSV row per shift played.
	if err := r.Store.SignIn(persist.Person{Instructor: true}, nil); err != nil {
		t.Fatal(err)
	}
	report, err := records.ReadClassReport(r.Store, lib)
	if err != nil {
		t.Fatal(err)
	}
	md := report.Markdown()
	for _, want := range []string{"| alice | 2 | 2 |", "| bob | 1 | 1 |", "## alice", "## bob", "| asthma-exacerbation |\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("the class report lacks %q:\n%s", want, md)
		}
	}
	var csv strings.Builder
	if err := report.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Split(strings.TrimSpace(csv.String()), "\n"); len(rows) != 4 || !strings.HasPrefix(rows[1], "alice,") || !strings.HasPrefix(rows[3], "bob,") ||
		!strings.HasSuffix(rows[3], ",asthma-exacerbation,0,0") {
		t.Errorf("CSV rows:\n%s", csv.String())
	}
}

// playAsthma plays one asthma patient: salbutamol given before anyone asked about allergies
// when careless, after when not; oxygen always; the first check after a minute when slow.
func playAsthma(r *sessiontest.Rig, careless bool, slow ...bool) {
	r.T.Helper()
	r.Turn("/admit patient_1 asthma-exacerbation")
	if len(slow) > 0 {
		r.Turn("/wait 1m")
	}
	r.Turn("/vitals")
	if !careless {
		r.Turn("any allergies?")
	}
	r.Turn("applying oxygen via non-rebreather at 15 L/min")
	r.Turn("give salbutamol 5 mg nebulised")
	r.Turn("prednisolone 40 mg PO") // a drug that can wait for the allergy history
	r.Turn("/wait 2m")
	r.Turn("/vitals")
}

// said is what ward and the team said in a turn, a message a line.
func said(events []session.Event) string {
	var b strings.Builder
	for _, ev := range events {
		if m, ok := ev.(session.MessageEvent); ok {
			b.WriteString(m.Text + "\n")
		}
	}
	return b.String()
}

// A trainee who gave no oxygen in two cases is offered, from their progress record, a third case
// that asks for it, with the reason; /progress offers one in the shift too, without naming the
// case being played.
func TestProgressOffersTheMissedActionAgain(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := sessiontest.Trainee(t, "carol")
	r.Turn("/admit patient_1 asthma-exacerbation")
	r.Turn("/vitals")
	r.Turn("give salbutamol 5 mg nebulised")
	r.Turn("/wait 10m")
	r.NewShift()
	r.Turn("/admit patient_1 pulmonary-embolism")
	r.Turn("/vitals")
	r.Turn("/wait 10m")

	p, err := records.ReadProgress(r.Store, lib)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Next) == 0 {
		t.Fatal("no next shift offered")
	}
	next := p.Next[0]
	if next.Action != "oxygen" {
		t.Fatalf("offered %+v; want a case for oxygen, missed in both shifts", next)
	}
	if next.Scenario == "asthma-exacerbation" || next.Scenario == "pulmonary-embolism" {
		t.Errorf("offered %s again, a case just played", next.Scenario)
	}
	if want := `you missed the critical action "oxygen" in 2 case(s) (asthma-exacerbation, pulmonary-embolism)`; !strings.Contains(next.Reason, want) {
		t.Errorf("reason %q, want %q", next.Reason, want)
	}
	// In the shift, the case being played is not named: the offer rests on the shifts before.
	if got := said(r.Turn("/progress")); !strings.Contains(got, "Next shift:") || !strings.Contains(got, "(asthma-exacerbation)") ||
		strings.Contains(got, "pulmonary-embolism") {
		t.Errorf("/progress said:\n%s", got)
	}
}
