package session

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
)

// On a screen that asks, a new patient named in free text waits for a yes once the shift has
// patients: nothing is admitted, the typed text is kept where it was typed, and the question
// carries the exact line a yes sends. Explicit /admit and ward run never ask.
func TestFreeTextAdmissionAsksFirst(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.ConfirmAdmissions = true })
	r.turn("review patient_1") // the first patient of an empty shift needs no yes
	events := r.turn("how about patient 6?")
	confirm := onlyOne(t, only[ConfirmEvent](events), "confirm event")
	if confirm.Line != "/admit patient_6" {
		t.Errorf("confirm line %q, want /admit patient_6", confirm.Line)
	}
	if _, admitted := r.s.reg.Patients["patient_6"]; admitted || r.s.Active() != "patient_1" {
		t.Fatalf("the question admitted or switched: roster %v, active %s", r.s.roster, r.s.Active())
	}
	if h := r.dump().Histories["patient_1"]; h[len(h)-1].Content != "how about patient 6?" {
		t.Errorf("the typed text is not kept with patient_1: %+v", h[len(h)-1])
	}
	r.turn(confirm.Line)
	if r.s.Active() != "patient_6" {
		t.Errorf("a yes did not admit patient_6 (active %s)", r.s.Active())
	}

	headless := newRig(t)
	headless.turn("review patient_1")
	if len(only[ConfirmEvent](headless.turn("review patient_6"))) != 0 || headless.s.Active() != "patient_6" {
		t.Error("ward run must admit at once, without a question")
	}
}

// A trainee names patients the way a ward does: by name, bed, order of arrival, condition, or
// "the other one". Where exactly one patient fits, the turn goes to them; where several do, ward
// asks which and charts nothing against the patient who was active.
func TestPatientsNamedWithoutAnID(t *testing.T) {
	tests := []struct {
		name     string
		admit    []string // scenario per patient, patient_1 first
		active   string   // who is active before the line
		line     string
		want     string // the active patient after the line
		question string // what the NEEDS_PATIENT_ID question must name, "" when none
	}{
		{"surname with a title", []string{"opioid-overdose", "acs-sildenafil"}, "patient_1", "let's go and see Mr Chen", "patient_2", ""},
		{"first name", []string{"opioid-overdose", "acs-sildenafil"}, "patient_2", "how is Liam doing?", "patient_1", ""},
		{"bed", []string{"opioid-overdose", "acs-sildenafil"}, "patient_1", "check on resus 4 please", "patient_2", ""},
		{"bed number", []string{"sepsis-urosepsis", "asthma-exacerbation"}, "patient_2", "back to bed 2", "patient_1", ""},
		{"first patient", []string{"opioid-overdose", "acs-sildenafil", "asthma-exacerbation"}, "patient_3", "go back to the first patient", "patient_1", ""},
		{"condition", []string{"opioid-overdose", "asthma-exacerbation"}, "patient_1", "I'll see the asthmatic now", "patient_2", ""},
		{"condition and a person word", []string{"opioid-overdose", "acs-sildenafil"}, "patient_1", "switch to the chest pain patient", "patient_2", ""},
		{"the other one of two", []string{"opioid-overdose", "acs-sildenafil"}, "patient_2", "switch to the other one", "patient_1", ""},
		{"the other one of three", []string{"opioid-overdose", "acs-sildenafil", "sepsis-urosepsis"}, "patient_2", "switch to the other one", "patient_2", "Which patient — Mr Carter in Resus 3 (patient_1) or Ms Price in Majors 2 (patient_3)?"},
		{"bedside words name no one", []string{"opioid-overdose", "acs-sildenafil"}, "patient_1", "listen to the chest and check the airway", "patient_1", ""},
		{"a capital that opens a sentence names no one", []string{"opioid-overdose", "acs-sildenafil"}, "patient_1", "Chest is clear. Give oxygen", "patient_1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			for i, sc := range tt.admit {
				r.turn(fmt.Sprintf("/admit patient_%d %s", i+1, sc))
			}
			r.turn("/switch " + tt.active)
			events := r.turn(tt.line)
			if r.s.Active() != tt.want {
				t.Errorf("%q: active %s, want %s", tt.line, r.s.Active(), tt.want)
			}
			var asked string
			for _, e := range only[ErrorEvent](events) {
				if e.Code == string(DecisionNeedsPatientID) {
					asked = e.Message
				}
			}
			if asked != tt.question {
				t.Errorf("%q: asked %q, want %q", tt.line, asked, tt.question)
			}
			if tt.question != "" && len(only[SimEvent](events)) != 0 {
				t.Errorf("%q: an unresolved reference still acted on %s", tt.line, r.s.Active())
			}
		})
	}
}

// When the analyzer's model does not answer, the trainee is told, with what decided instead.
func TestAnalyzerFallbackIsNeverSilent(t *testing.T) {
	down := &scripted{Backend: offline.New(), replies: []llm.Response{{}}, errs: []error{&llm.StallError{After: time.Second}}}
	r := newRigWith(t, func(c *Config) {
		c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(down, analyzer.LLMAnalyzerConfig{}))
	})
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/admit patient_2 opioid-overdose")
	events := r.turn("check on the patient") // the rules cannot tell which patient: they ask the model
	notes := only[NoteEvent](events)
	if down.calls != 1 {
		t.Fatalf("the analyzer's model was asked %d times, want once", down.calls)
	}
	if len(notes) != 1 || notes[0].Stop != "analyzer" || !strings.Contains(notes[0].Text, "did not answer") {
		t.Fatalf("notes %+v: want one saying the analyzer did not answer", notes)
	}
}

// When the router model answers outside its format, the trainee is told who took the question
// instead, as with the analyzer.
func TestRouterFallbackIsNeverSilent(t *testing.T) {
	junk := &scripted{Backend: offline.New(), replies: []llm.Response{{Message: memory.Message{Content: "Monitor, I think"}}}, errs: []error{nil}}
	team, err := agents.LoadTeam("")
	if err != nil {
		t.Fatal(err)
	}
	team.Router = junk
	r := newRigWith(t, func(c *Config) { c.Team = team })
	r.turn("/admit patient_1 asthma-exacerbation")
	notes := only[NoteEvent](r.turn("what should I do next?"))
	if junk.calls == 0 {
		t.Fatal("the router model was never asked")
	}
	if len(notes) != 1 || notes[0].Stop != "router" || !strings.Contains(notes[0].Text, "so the Orchestrator takes the question") {
		t.Fatalf("notes %+v: want one saying the router gave no usable answer", notes)
	}
}

// A line that asks for a patient by an ID ward cannot use goes to no one: the decision is
// NEEDS_PATIENT_ID, the question names what was typed and the roster's patients, and the active
// patient neither answers nor is acted on (issue 22).
func TestActivationWithAnInvalidIDGoesToNoOne(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		admit   []string
		line    string
		meant   string
	}{
		{"a letter after the number", `^patient_[0-9]+$`, []string{"patient_1", "patient_2"}, "review patient_1a", "patient_1a"},
		{"an ID the pattern refuses", `^MRN[0-9]{7}$`, []string{"MRN1234567"}, "review patient_4", "patient_4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.cfg.Pattern = regexp.MustCompile(tt.pattern)
			r.restart()
			for _, id := range tt.admit {
				r.turn("/admit " + id)
			}
			active := r.s.Active()
			before := len(r.dump().Histories[active])
			events := r.turn(tt.line)
			if d := decisionOf(t, events); d.Decision != string(DecisionNeedsPatientID) {
				t.Fatalf("decision %s (%s), want NEEDS_PATIENT_ID", d.Decision, d.Reasoning)
			}
			asked := onlyOne(t, only[ErrorEvent](events), "error event")
			for _, want := range append([]string{tt.meant + " is not a patient ID"}, tt.admit...) {
				if !strings.Contains(asked.Message, want) {
					t.Errorf("the question %q does not name %q", asked.Message, want)
				}
			}
			if r.s.Active() != active || len(only[SimEvent](events)) != 0 || len(only[DeltaEvent](events)) != 0 {
				t.Errorf("the active patient heard the line: active %s, events %+v", r.s.Active(), events)
			}
			h := r.dump().Histories[active]
			if len(h) != before+1 || h[len(h)-1].Content != tt.line { // kept where it was typed, unanswered
				t.Errorf("history of %s after the line: %+v", active, h[before:])
			}
		})
	}
}

// An ID that differs from a roster patient's only by leading zeros or case is asked about before
// anyone is admitted, typed or by /switch: a screen asks, ward run refuses and says how to go on;
// /admit still admits.
func TestLookAlikeIDIsAskedAboutBeforeAdmitting(t *testing.T) {
	screen := newRigWith(t, func(c *Config) { c.ConfirmAdmissions = true })
	screen.turn("review patient_1")
	confirm := onlyOne(t, only[ConfirmEvent](screen.turn("review patient_01")), "confirm event")
	if confirm.Line != "/admit patient_01" || !strings.Contains(confirm.Question, "but patient_1 is") {
		t.Errorf("confirm %+v", confirm)
	}
	if _, admitted := screen.s.reg.Patients["patient_01"]; admitted || screen.s.Active() != "patient_1" {
		t.Fatalf("the look-alike was admitted or made active: active %s", screen.s.Active())
	}

	headless := newRig(t)
	headless.turn("review patient_1")
	events := headless.turn("switch to patient_001")
	asked := onlyOne(t, only[ErrorEvent](events), "error event")
	if asked.Code != string(DecisionNeedsPatientID) || !strings.Contains(asked.Message, "/admit patient_001") {
		t.Errorf("ward run: %+v", asked)
	}
	if _, admitted := headless.s.reg.Patients["patient_001"]; admitted {
		t.Fatal("ward run admitted the look-alike")
	}
	headless.turn("/switch Patient_01")
	if len(headless.s.roster) != 1 {
		t.Fatalf("/switch admitted a look-alike: roster %v", headless.s.roster)
	}
	headless.turn("/admit patient_001")
	if headless.s.Active() != "patient_001" {
		t.Errorf("/admit did not admit the look-alike (active %s)", headless.s.Active())
	}
}
