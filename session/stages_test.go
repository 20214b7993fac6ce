package session

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
)

// The stages of a turn, each run alone on a session the whole turns before them built.

// stageTurn starts a turn as Turn does, without running it.
func (r *rig) stageTurn(text string) *turn {
	r.s.begin(llm.TraceInput{Op: llm.InputTurn, Text: text}, func(Event) {})
	return newTurn(text, func(Event) {})
}

// settle alone: a line for the active patient is held for the turn's commit, which stores it
// as the newest message of their conversation, and the conversation handed on is the one it
// continues, without it.
func TestSettleHoldsTheLineForTheTurnsCommit(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("How is your breathing?")
	line := "Is the tightness any better?"

	tt := r.stageTurn(line)
	st, ok := r.s.settle(context.Background(), tt)
	if !ok || r.s.active != "patient_1" {
		t.Fatalf("settle = ok %v, active %s; want patient_1", ok, r.s.active)
	}
	stored := contents(r.dump().Histories["patient_1"])
	if prior := contents(st.prior); !slices.Equal(prior, stored) {
		t.Errorf("prior = %q, want the stored conversation %q", prior, stored)
	}
	if !tt.holdsLine() || tt.line.to != "patient_1" {
		t.Fatalf("settle holds no line for patient_1")
	}
	if !r.s.commit(tt, nil) {
		t.Fatal("the turn's commit failed")
	}
	if stored = contents(r.dump().Histories["patient_1"]); stored[len(stored)-1] != "user:"+line {
		t.Errorf("stored = %q: the line is not the newest message", stored)
	}
}

// settle alone: a line naming another patient moves the turn to them and hands on their
// conversation, not the one it was typed in; the line is stored in theirs, whether it says
// something to them or only goes to them (seed 000: the line that switches is the new patient's).
func TestSettleHandsOnTheConversationOfThePatientNamed(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("How is your breathing?")
	r.turn("/admit patient_2 anaphylaxis")
	r.turn("Any itching?")

	tt := r.stageTurn("patient_1, is the tightness any better?")
	st, ok := r.s.settle(context.Background(), tt)
	if !ok || r.s.active != "patient_1" || !r.s.commit(tt, nil) {
		t.Fatalf("settle = ok %v, active %s; want patient_1, and the turn's commit", ok, r.s.active)
	}
	if prior := contents(st.prior); !slices.Contains(prior, "user:How is your breathing?") || slices.Contains(prior, "user:Any itching?") {
		t.Errorf("prior = %q, want patient_1's conversation", prior)
	}
	if h := contents(r.dump().Histories["patient_1"]); h[len(h)-1] != "user:patient_1, is the tightness any better?" {
		t.Errorf("patient_1's conversation ends %q, want the question put to them", h[len(h)-1])
	}
	r.turn("review patient_2")
	histories := r.dump().Histories
	if slices.Contains(contents(histories["patient_1"]), "user:review patient_2") {
		t.Error("the line that went to patient_2 was stored in patient_1's conversation")
	}
	h := contents(histories["patient_2"])
	if i := slices.Index(h, "user:review patient_2"); i < 0 || i == len(h)-1 || !strings.HasPrefix(h[i+1], "assistant:") {
		t.Errorf("patient_2's conversation is %q, want the line that went to them, then the answer", h)
	}
}

// A line the analyzer's model sends to another patient is stored before the model is asked, in the
// conversation it was typed in, and moved to the patient's with the switch: their chat shows the
// question above the answer, and the one it left holds nothing of it.
func TestALineAModelSendsElsewhereMovesWithTheSwitch(t *testing.T) {
	model := &scripted{Backend: offline.New(), errs: []error{nil}, replies: []llm.Response{{Message: memory.Message{
		Content: `{"action":"SWITCH_EXISTING","patient_id":"patient_1","reasoning":"the wheezy one is patient_1"}`}}}}
	r := newRigWith(t, func(c *Config) {
		c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(model, analyzer.LLMAnalyzerConfig{}))
	})
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/admit patient_2 opioid-overdose")
	left := contents(r.dump().Histories["patient_2"])
	line := "check on the patient — is the tightness any better?"

	r.turn(line)
	if model.calls != 1 || r.s.Active() != "patient_1" {
		t.Fatalf("the model was asked %d times and patient %s is active; want once, patient_1", model.calls, r.s.Active())
	}
	histories := r.dump().Histories
	if got := contents(histories["patient_2"]); !slices.Equal(got, left) {
		t.Errorf("patient_2's conversation is %q, want it as it was: %q", got, left)
	}
	got := contents(histories["patient_1"])
	i := slices.Index(got, "user:"+line)
	if i < 0 || i == len(got)-1 || !strings.HasPrefix(got[i+1], "assistant:") {
		t.Errorf("patient_1's conversation is %q, want the line followed by the answer", got)
	}
	r.restart()
	if got := contents(r.dump().Histories["patient_2"]); !slices.Equal(got, left) {
		t.Errorf("after a restart patient_2's conversation is %q", got)
	}
}

// A line the analyzer's model names a patient for with an ID that is not one was stored, before
// the model was asked, in the conversation it was typed in; it leaves it for the shift's own
// history, so the active patient never hears it.
func TestALineAModelCannotPlaceLeavesTheActiveConversation(t *testing.T) {
	model := &scripted{Backend: offline.New(), errs: []error{nil}, replies: []llm.Response{{Message: memory.Message{
		Content: `{"action":"SWITCH_EXISTING","patient_id":"bed four","reasoning":"the trainee means bed four"}`}}}}
	r := newRigWith(t, func(c *Config) {
		c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(model, analyzer.LLMAnalyzerConfig{}))
	})
	r.turn("/admit patient_1 asthma-exacerbation")
	left := contents(r.dump().Histories["patient_1"])
	line := "check on the patient — is the tightness any better?"

	events := r.turn(line)
	if model.calls != 1 {
		t.Fatalf("the model was asked %d times, want once", model.calls)
	}
	if d := decisionOf(t, events); d.Decision != string(DecisionNeedsPatientID) {
		t.Fatalf("decision %s (%s), want NEEDS_PATIENT_ID", d.Decision, d.Reasoning)
	}
	d := r.dump()
	if got := contents(d.Histories["patient_1"]); !slices.Equal(got, left) {
		t.Errorf("patient_1's conversation is %q, want it as it was: %q", got, left)
	}
	if got := contents(d.SessionHistory); len(got) == 0 || got[len(got)-1] != "user:"+line {
		t.Errorf("the shift's own history is %q, want it to end with the line", got)
	}
}

// examine alone: an order changes the engine once; the same line examined again as a retry
// answers from the engine as it is and applies nothing twice.
func TestExamineAppliesAnOrderOnceAndNotOnRetry(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	order := "give oxygen 15 L/min via non-rebreather mask"

	first := r.s.examine(r.stageTurn(order), settled{})
	if len(first.events) == 0 {
		t.Fatal("the order changed nothing in the engine")
	}
	again := r.s.examine(r.stageTurn(order), settled{retry: true})
	if len(again.events) != 0 {
		t.Errorf("a retry applied the order again: %+v", again.events)
	}
	if again.engine != first.engine {
		t.Error("the retry examined another engine")
	}
}

// converse alone: what the team says is handed on in order and nothing is stored; an order the
// Pharmacist holds back is answered by the Pharmacist first; when the line held nothing else, that
// word is the whole answer, and a question asked with it still has the patient's.
func TestConverseHandsOnWhatWasSaidAndStoresNothing(t *testing.T) {
	cases := []struct {
		line   string
		agents []string
	}{
		{"give amoxicillin 500 mg PO", []string{agents.AgentPharmacist}},
		{"give amoxicillin 500 mg PO and how is your breathing?", []string{agents.AgentPharmacist, agents.AgentPatient}},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			r := newRig(t)
			r.turn("/admit patient_1 anaphylaxis")
			r.turn("what happened? any allergies?") // known, the allergy stops the order
			tt := r.stageTurn(c.line)
			st, ok := r.s.settle(context.Background(), tt)
			if !ok {
				t.Fatal("settle ended the turn")
			}
			x := r.s.examine(tt, st)
			before := contents(r.dump().Histories["patient_1"])

			said, err := r.s.converse(context.Background(), tt, st.prior, x)
			if err != nil {
				t.Fatal(err)
			}
			var who []string
			for _, m := range said {
				who = append(who, m.Agent)
			}
			if !slices.Equal(who, c.agents) {
				t.Errorf("said by %q, want %q", who, c.agents)
			}
			if after := contents(r.dump().Histories["patient_1"]); !slices.Equal(after, before) {
				t.Errorf("converse stored something:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// record alone: what was said is stored after the typed line in one commit, stamped with the
// sim clock; a failure that stopped the team is reported by its code, and what was said before
// it is kept.
func TestRecordStoresWhatWasSaidAndReportsTheFailure(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/wait 2m")
	var events []Event
	tt := newTurn("How is your breathing?", func(e Event) { events = append(events, e) })
	said := []memory.Message{r.s.message(memory.RoleAssistant, agents.AgentPatient, "Tight… can't finish… a sentence.")}

	r.s.record(tt, said, llm.ErrEmpty)
	h := r.dump().Histories["patient_1"]
	last := h[len(h)-1]
	if last.Content != said[0].Content || last.Agent != agents.AgentPatient {
		t.Fatalf("the conversation ends %+v, want the Patient's line", last)
	}
	if last.Sim != r.s.sim.ward.Clock() || last.Sim == 0 {
		t.Errorf("stored at sim %v, want the clock %v", last.Sim, r.s.sim.ward.Clock())
	}
	var codes []string
	for _, e := range events {
		if e, ok := e.(ErrorEvent); ok {
			codes = append(codes, e.Code)
		}
	}
	if !slices.Equal(codes, []string{"LLM_EMPTY"}) {
		t.Errorf("errors reported %q, want LLM_EMPTY", codes)
	}
}

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
		t.Fatalf("the question admitted or switched: roster %v, active %s", r.s.reg.roster, r.s.Active())
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
			d := r.dump()
			if h := d.Histories[active]; len(h) != before {
				t.Errorf("the line reached %s's conversation: %+v", active, h[before:])
			}
			if h := d.SessionHistory; len(h) == 0 || h[len(h)-1].Content != tt.line { // kept, as no one's
				t.Errorf("the shift's own history does not end with the line: %+v", h)
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
	if len(headless.s.reg.roster) != 1 {
		t.Fatalf("/switch admitted a look-alike: roster %v", headless.s.reg.roster)
	}
	headless.turn("/admit patient_001")
	if headless.s.Active() != "patient_001" {
		t.Errorf("/admit did not admit the look-alike (active %s)", headless.s.Active())
	}
}
