package session

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
)

// traineeRig is a rig whose store acts for trainee.
func traineeRig(t *testing.T, trainee string) *rig {
	t.Helper()
	return newRigWith(t, func(cfg *Config) {
		if err := cfg.Store.SignIn(persist.Person{Trainee: trainee}, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// newShift starts another shift for the rig's trainee, as `ward --new` would.
func (r *rig) newShift() {
	r.t.Helper()
	s, err := Start(r.cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	r.s = s
}

func saidText(events []Event) string {
	var b strings.Builder
	for _, m := range messages(events) {
		b.WriteString(m.Text + "\n")
	}
	for _, e := range only[ErrorEvent](events) {
		b.WriteString("error: " + e.Message + "\n")
	}
	return b.String()
}

func TestPrefsRoundTripAndUse(t *testing.T) {
	r := traineeRig(t, "alice")
	if r.s.info.Trainee != "alice" {
		t.Fatalf("the shift's trainee is %q, want alice", r.s.info.Trainee)
	}
	if got := saidText(r.turn("/prefs")); !strings.Contains(got, "- handoff: sbar (ward's default)") {
		t.Errorf("/prefs before any is set:\n%s", got)
	}
	for _, line := range []string{"/prefs handoff I-PASS", "/prefs speed 3", "/prefs theme light", "/prefs window sliding", "/prefs model qwen2.5:3b"} {
		if got := saidText(r.turn(line)); !strings.Contains(got, "Saved for alice") {
			t.Errorf("%s: %s", line, got)
		}
	}
	for _, bad := range []string{"/prefs handoff soap", "/prefs speed 11", "/prefs theme neon", "/prefs colour red"} {
		if errs := only[ErrorEvent](r.turn(bad)); len(errs) != 1 || errs[0].Code != "USAGE" {
			t.Errorf("%s: %v, want one usage error", bad, errs)
		}
	}
	want := Prefs{Handoff: "ipass", Theme: "light", Speed: 3, Window: "sliding", Model: "qwen2.5:3b"}
	got, err := LoadPrefs(r.store, "alice")
	if err != nil || got != want {
		t.Fatalf("stored preferences = %+v, %v; want %+v", got, err, want)
	}

	// The next shift starts from them: the clock's speed, and the handoff /handoff drafts.
	r.newShift()
	if _, _, speed := r.s.Clock(); speed != 3 {
		t.Errorf("a new shift runs at ×%g, want the preferred ×3", speed)
	}
	r.turn("/admit patient_1 asthma-exacerbation")
	if got := saidText(r.turn("/handoff")); !strings.Contains(got, "I-PASS handoff") {
		t.Errorf("/handoff with I-PASS preferred drafted:\n%s", got)
	}
	if got := saidText(r.turn("/handoff mist")); !strings.Contains(got, "MIST") {
		t.Errorf("/handoff mist should still draft MIST:\n%s", got)
	}
	if other, _ := LoadPrefs(r.store, "bob"); other != (Prefs{}) {
		t.Errorf("bob has alice's preferences: %+v", other)
	}
}

// A preference the conversation reveals is only kept when the trainee says yes: the turn asks
// with the /prefs line to send, and nothing is saved until that line runs.
func TestPreferenceFromTheConversationAsksFirst(t *testing.T) {
	answer := llm.Response{Message: memory.Message{Role: "assistant",
		Content: `{"reply":"Noted.","entities_to_update":{"handoff_format_preference":"I-PASS"},"derived_entities_to_update":{}}`}}
	r := newRigWith(t, func(cfg *Config) {
		if err := cfg.Store.SignIn(persist.Person{Trainee: "alice"}, nil); err != nil {
			t.Fatal(err)
		}
		cfg.Backend = &scripted{Backend: offline.New(), replies: []llm.Response{answer}, errs: []error{nil}}
	})
	r.turn("/admit patient_1 asthma-exacerbation")
	asks := only[ConfirmEvent](r.turn("I always hand over with I-PASS"))
	if len(asks) != 1 || asks[0].Line != "/prefs handoff ipass" || !strings.Contains(asks[0].Question, "I-PASS") {
		t.Fatalf("confirm events = %+v, want one offering /prefs handoff ipass", asks)
	}
	if p, _ := LoadPrefs(r.store, "alice"); p.Handoff != "" {
		t.Fatalf("the preference was saved before the trainee said yes: %+v", p)
	}
	if again := only[ConfirmEvent](r.turn("I-PASS, as I said")); len(again) != 0 {
		t.Errorf("asked twice about the same value: %+v", again)
	}
	r.turn(asks[0].Line) // the trainee says yes
	if p, _ := LoadPrefs(r.store, "alice"); p.Handoff != "ipass" {
		t.Errorf("after yes, handoff = %q, want ipass", p.Handoff)
	}
	if kept := only[ConfirmEvent](r.turn("I-PASS please")); len(kept) != 0 {
		t.Errorf("asked about the format already kept: %+v", kept)
	}
}

// playAsthma plays one asthma patient: salbutamol given before anyone asked about allergies
// when careless, after when not; oxygen always; then salbutamol and prednisolone; the first check
// after a minute when slow.
func (r *rig) playAsthma(careless bool, slow ...bool) {
	r.t.Helper()
	r.turn("/admit patient_1 asthma-exacerbation")
	if len(slow) > 0 {
		r.turn("/wait 1m")
	}
	r.turn("/vitals")
	if !careless {
		r.turn("any allergies?")
	}
	r.turn("applying oxygen via non-rebreather at 15 L/min")
	r.turn("give salbutamol 5 mg nebulised")
	r.turn("prednisolone 40 mg PO") // a drug that can wait for the allergy history
	r.turn("/wait 2m")
	r.turn("/vitals")
}

// The Preceptor names what came back across the trainee's earlier shifts, and only then.
func TestPreceptorNamesRecurringErrorsAcrossShifts(t *testing.T) {
	r := traineeRig(t, "alice")
	r.playAsthma(true)
	if got := preceptorSays(t, r); strings.Contains(got, "earlier shifts") {
		t.Errorf("a first shift's debrief speaks of earlier shifts:\n%s", got)
	}
	r.newShift()
	r.playAsthma(true)
	r.newShift()
	r.playAsthma(false)
	got := preceptorSays(t, r)
	if !strings.Contains(got, "Across your earlier shifts") || !strings.Contains(got, "allergies") || !strings.Contains(got, "in 2 of the last 2 shifts") {
		t.Errorf("the debrief after two careless shifts does not name the pattern:\n%s", got)
	}

	// Another trainee's shifts are not theirs to carry.
	if err := r.store.SignIn(persist.Person{Trainee: "bob"}, nil); err != nil {
		t.Fatal(err)
	}
	r.newShift()
	r.playAsthma(false)
	if got := preceptorSays(t, r); strings.Contains(got, "earlier shifts") {
		t.Errorf("bob's debrief names alice's pattern:\n%s", got)
	}
}

func preceptorSays(t *testing.T, r *rig) string {
	t.Helper()
	for _, m := range messages(r.turn("/aar")) {
		if m.Agent == "Preceptor" {
			return m.Text
		}
	}
	t.Fatal("the Preceptor said nothing to /aar")
	return ""
}

func TestAuditOfAShift(t *testing.T) {
	path := ""
	r := newRigWith(t, func(cfg *Config) {
		path = persist.AuditPath(t.TempDir() + "/ward.db")
		cfg.Audit = &persist.AuditLog{Path: path, User: "sam"}
		_ = cfg.Store.SignIn(persist.Person{Trainee: "alice"}, nil)
	})
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/clear")
	r.restart()
	if _, err := r.s.Transcript(); err != nil { // a copy or /export on the screen
		t.Fatal(err)
	}
	entries, err := persist.ReadAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.Session != r.s.ID() || e.As != "trainee alice" {
			t.Errorf("entry %+v is not alice's shift", e)
		}
		got = append(got, e.Action+" "+e.Detail)
	}
	if want := "open a new shift|clear archive 1|open resumed|export the shift's chat from the screen"; strings.Join(got, "|") != want {
		t.Errorf("audit = %q, want %q", strings.Join(got, "|"), want)
	}
}

// /progress in a shift does not name the cases of the shift being played: the trainee is still
// discovering them.
func TestProgressKeepsTheShiftBeingPlayedUndisclosed(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	if got := saidText(r.turn("/progress")); !strings.Contains(got, "(being played)") || strings.Contains(got, "asthma") {
		t.Errorf("/progress said:\n%s", got)
	}
}
