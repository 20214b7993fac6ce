package session

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ward-sim/ward/session/aar"
	"regexp"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/records"
)

// chatOf is what the trainee reads in a run: each message's speaker and text, in order.
func chatOf(events []jsonEvent) []jsonEvent { return ofKind(events, "message") }

func saidBy(events []jsonEvent, agent string) []string {
	var out []string
	for _, m := range chatOf(events) {
		if m.str("agent") == agent {
			out = append(out, m.str("text"))
		}
	}
	return out
}

// seeded is a rig whose shift's physiology is seeded, as `ward run --seed 1` is.
func seeded(t *testing.T) *rig { return newRigWith(t, func(c *Config) { c.Seed = 1 }) }

// The walkthrough of the anaphylaxis case: amoxicillin to a penicillin-allergic man and a 50 mg
// IV adrenaline bolus. As written, the Pharmacist stops both, and the review and the Preceptor's
// debrief name both as near misses after the missed critical actions. Given on the trainee's
// override, both are critical errors and lead the debrief.
func TestAnaphylaxisWalkthroughDebriefNamesBothErrors(t *testing.T) {
	cases := []struct {
		name, override string
		errors, misses int
		order          []string
	}{
		{"stopped", "", 0, 2, []string{"Missed critical actions", "A crystalloid bolus for hypotension — not done",
			"Near misses", "the Pharmacist stopped amoxicillin 500 mg PO", "the Pharmacist stopped adrenaline 50 mg IV", "What went well", "Score"}},
		{"overridden", ", override", 2, 0, []string{"Critical errors", "overrode the Pharmacist's stop and gave amoxicillin",
			"An IV adrenaline bolus outside cardiac arrest", "Missed critical actions",
			"A crystalloid bolus for hypotension — not done", "What went well", "Score"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := seeded(t)
			events := runJSON(t, r.s, lines("/admit patient_7 anaphylaxis", "what happened? any allergies?", "give amoxicillin 500 mg PO"+c.override,
				"IV access", "/wait 1m", "give adrenaline 50 mg IV"+c.override, "/wait 3m", "/vitals", "give adrenaline 0.5 mg IM and oxygen 15L", "/wait 5m", "/vitals", "/aar"))
			rep := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event"))
			if len(rep.CriticalErrors) != c.errors || len(rep.NearMisses) != c.misses {
				t.Fatalf("the review lists %d critical errors and %d near misses, want %d and %d", len(rep.CriticalErrors), len(rep.NearMisses), c.errors, c.misses)
			}
			debrief := saidBy(events, agents.AgentPreceptor)
			if len(debrief) != 1 {
				t.Fatalf("%d Preceptor messages, want 1", len(debrief))
			}
			text := debrief[0]
			at := -1
			for _, want := range c.order {
				i := strings.Index(text, want)
				if i <= at {
					t.Errorf("the debrief lacks %q after what comes before it:\n%s", want, text)
				}
				at = max(at, i)
			}
			if !strings.Contains(text, rep.Score.HowScored()) {
				t.Errorf("the debrief does not show how the score was reached (%s):\n%s", rep.Score.HowScored(), text)
			}
		})
	}
}

func onlyOneJSON(t *testing.T, events []jsonEvent, what string) jsonEvent {
	t.Helper()
	if len(events) != 1 {
		t.Fatalf("%d %s, want 1", len(events), what)
	}
	return events[0]
}

// /aar and `ward aar` read the same record and say the same thing.
func TestAARCommandAndWardAARAgree(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_1 sepsis-urosepsis", "check vitals", "any allergies?", "IV access, 500 mL saline bolus",
		"/wait 10m", "check vitals", "/aar"))
	live := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event"))
	stored, err := records.AAR(r.store, r.s.cfg.Scenarios, "")
	if err != nil {
		t.Fatal(err)
	}
	if live.NEWS2AtArrival.Text != stored.NEWS2AtArrival.Text || live.NEWS2Now.Text != stored.NEWS2Now.Text || live.Score.Total != stored.Score.Total {
		t.Errorf("/aar says %s → %s scoring %d; ward aar says %s → %s scoring %d", live.NEWS2AtArrival.Text, live.NEWS2Now.Text, live.Score.Total,
			stored.NEWS2AtArrival.Text, stored.NEWS2Now.Text, stored.Score.Total)
	}
	if stored.Markdown() != live.Markdown() {
		t.Errorf("the two reviews differ:\n%s\n---\n%s", live.Markdown(), stored.Markdown())
	}
}

// Speech follows consciousness: a seizing patient at GCS 4 says nothing, and one whose breathing
// stacked opioids have slowed says no words.
func TestThePatientSaysNoMoreThanTheirConsciousnessAllows(t *testing.T) {
	cases := []struct {
		name, state string
		input       []string
		limit       int
	}{
		{"seizing hypoglycaemia", "seizing", []string{"/admit patient_4 hypoglycaemia", "/wait 20m", "Tom, can you hear me? How are you feeling?"}, 0},
		{"opioid toxicity", "opioid-toxicity", []string{"/admit patient_5 fracture-morphine-allergy", "any allergies?", "fentanyl 100 mcg IN", "/wait 4m",
			"another 100 mcg fentanyl IN", "/wait 18m", "how is the pain now?"}, 0},
		{"found unresponsive", "overdose", []string{"/admit patient_1 opioid-overdose", "hello? what happened?"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := seeded(t)
			events := runJSON(t, r.s, lines(c.input...))
			turns := byTurn(events)
			last := saidBy(turns[len(turns)-1], agents.AgentPatient)
			if len(last) != 1 {
				t.Fatalf("%d Patient messages in the last turn, want 1", len(last))
			}
			e := r.engine(onlyOneJSON(t, ofKind(turns[0], "decision"), "decision").str("patient_id"))
			if e.State() != c.state {
				t.Fatalf("the patient is %s, want %s", e.State(), c.state)
			}
			gcs := e.TrueVitals().GCS
			if n := agents.SpokenWords(last[0]); n > c.limit {
				t.Errorf("at GCS %d the patient said %d words aloud: %q", gcs, n, last[0])
			}
			if !strings.HasPrefix(last[0], "*") {
				t.Errorf("a patient who cannot talk is described in the third person, not %q", last[0])
			}
		})
	}
}

// scriptedModel answers the agents it has replies for, in turn, and every other call as the
// offline backend does. It records what it was asked.
type scriptedModel struct {
	llm.Backend
	replies map[string][]string
	asked   map[string][]llm.Request
}

func newScriptedModel(replies map[string][]string) *scriptedModel {
	return &scriptedModel{Backend: offline.New(), replies: replies, asked: map[string][]llm.Request{}}
}

func (m *scriptedModel) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	queue := m.replies[req.Agent]
	if len(queue) == 0 {
		return m.Backend.Chat(ctx, req, onDelta)
	}
	m.replies[req.Agent], m.asked[req.Agent] = queue[1:], append(m.asked[req.Agent], req)
	content := queue[0]
	if req.Format != nil {
		b, _ := json.Marshal(map[string]any{"reply": content, "entities_to_update": map[string]any{}, "derived_entities_to_update": map[string]any{}})
		content = string(b)
	}
	onDelta(content)
	return llm.Response{Message: memory.Message{Role: memory.RoleAssistant, Content: content}, DoneReason: "stop"}, nil
}

func withModel(t *testing.T, m *scriptedModel) *rig {
	r := seeded(t)
	r.cfg.Backend = m
	r.restart()
	return r
}

// A model's Patient who talks beyond their consciousness is replaced by what the trainee sees,
// and the inspector says why.
func TestAModelPatientIsHeldToTheEnginesConsciousness(t *testing.T) {
	m := newScriptedModel(map[string][]string{agents.AgentPatient: {"Get off… I'm fine… where's my… keys?"}})
	r := withModel(t, m)
	r.turn("/admit patient_4 hypoglycaemia")
	r.turn("/wait 20m")
	events := r.turn("how are you feeling?")
	said := onlyOne(t, agentMessages(events), "message")
	if said.Agent != agents.AgentPatient || agents.SpokenWords(said.Text) != 0 || !strings.Contains(said.Text, "No response to voice or to pain") {
		t.Errorf("at GCS %d the patient's message is %q; want the engine's description", r.engine("patient_4").TrueVitals().GCS, said.Text)
	}
	facts := agents.ReadFacts(m.asked[agents.AgentPatient][0].Messages)
	if facts.Turn.Speech != agents.SpeechNone || !strings.Contains(facts.Turn.Can, "says nothing") {
		t.Errorf("the Patient's facts do not say what the patient can do now: %+v", facts.Turn)
	}
	turns := r.s.turns
	if held := turns[len(turns)-1].Calls[0].Held; held == "" {
		t.Error("the call's record does not say the reply was replaced")
	}
}

// A relative at the bedside gives the history the patient cannot, in their own voice, and the
// handoff says who said it.
func TestTheRelativeGivesTheHistory(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_4 hypoglycaemia", "/wait 12m", "any allergies? what happened?", "/handoff"))
	wife := saidBy(events, "Sarah Harris, his wife")
	if len(wife) != 1 || !strings.Contains(wife[0], "sticking plasters") || !strings.Contains(wife[0], "no lunch") {
		t.Fatalf("the wife said %q; want his allergy and what happened", wife)
	}
	for _, said := range saidBy(events, agents.AgentPatient) {
		if strings.Contains(said, "plasters") {
			t.Errorf("the patient at GCS %d answered himself: %q", r.engine("patient_4").TrueVitals().GCS, said)
		}
	}
	handoff := saidBy(events, agents.AgentOrchestrator)
	if len(handoff) != 1 || !strings.Contains(handoff[0], "- Allergies: (Sarah Harris, his wife) Just sticking plasters") {
		t.Errorf("the handoff does not say who gave the allergy:\n%s", handoff)
	}
}

// Every measurement asked for is read out by the Monitor from the engine, whoever the turn went
// to: vitals and glucose together, the rhythm, and EtCO2 (or why it cannot be); the pupils are
// an examination, which the nurse reads out from the engine's findings.
func TestEveryMeasurementAskedForIsReported(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_1 opioid-overdose", "check vitals and capillary blood glucose", "check his pupils",
		"what's the rhythm?", "what's his EtCO2?", "attach the monitor", "what's his EtCO2 now?", "what's his temperature?"))
	turns := byTurn(events)
	e := r.engine("patient_1")
	results := e.Results()
	want := [][]string{
		nil,
		{"Measured at T+00:00: HR ", "— NEWS2", "Capillary glucose: " + results[0].Value},
		nil,
		{"12-lead ECG: sinus rhythm"},
		{"EtCO2: not measured: it needs waveform capnography"},
		{"Measured at"},
		{`EtCO2 \d+ — NEWS2`},
		{`Measured at T\+00:00: .*, T 36\.\d, `},
	}
	for i, wants := range want {
		monitor := strings.Join(saidBy(turns[i], agents.AgentMonitor), "\n")
		for _, w := range wants {
			if !regexp.MustCompile(w).MatchString(monitor) && !strings.Contains(monitor, w) {
				t.Errorf("turn %q: the Monitor said %q, want %q", turns[i][0].str("input"), monitor, w)
			}
		}
	}
	if nurse := strings.Join(saidBy(turns[2], nurseAgent), "\n"); !strings.Contains(nurse, "pupils: pinpoint, barely reacting to light") {
		t.Errorf("turn %q: the nurse said %q, want the pupils found", turns[2][0].str("input"), nurse)
	}
}

// The Monitor reads a measurement out in the engine's own words, whoever plays it: the offline
// Monitor's answer to /vitals holds the engine's readout of that reading, capnography included,
// and its change since the last moment measured before (the monitor's reading at T+01:00 and the
// check /vitals makes then are one measurement).
func TestTheMonitorReadsOutInTheEnginesWords(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_1 opioid-overdose", "attach the monitor", "/wait 1m", "/vitals"))
	turns := byTurn(events)
	e := r.engine("patient_1")
	readings := e.Readings()
	last := readings[len(readings)-1]
	want := fmt.Sprintf("Measured at %s: %s.", memory.Clock(last.T-e.Admitted()), last.String())
	if !strings.Contains(want, "EtCO2") {
		t.Fatalf("the monitor's reading has no capnography: %s", want)
	}
	said := strings.Join(saidBy(turns[len(turns)-1], agents.AgentMonitor), "\n")
	if !strings.Contains(said, want) {
		t.Errorf("the Monitor said\n%s\nwant the engine's readout\n%s", said, want)
	}
	if !regexp.MustCompile(`[Ss]ince T\+00:00`).MatchString(said) {
		t.Errorf("the Monitor's trend is not since T+00:00, the moment measured before:\n%s", said)
	}
}

// How the patient feels follows the engine's state: asked again once the glucose has brought him
// round, he no longer describes the hypo he arrived with.
func TestThePatientSaysHowTheyFeelNowNotOnArrival(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_1 hypoglycaemia", "how are you feeling?",
		"IV access and give glucose 10% 150 ml IV", "/wait 10m", "how are you feeling now?"))
	turns := byTurn(events)
	before := strings.Join(saidBy(turns[1], agents.AgentPatient), "\n")
	after := strings.Join(saidBy(turns[4], agents.AgentPatient), "\n")
	if !strings.Contains(before, "Shaky… sweaty… my head's all fuzzy.") {
		t.Errorf("on arrival he said %q, want the hypo he arrived with", before)
	}
	if state := r.engine("patient_1").CurrentState().Name(); state != "recovering" {
		t.Fatalf("the engine is in %s, want recovering", state)
	}
	if !strings.Contains(after, "Better… still a bit shaky.") || strings.Contains(after, "fuzzy") {
		t.Errorf("recovering, he said %q, want how he feels now", after)
	}
}

// A drug has one name wherever the trainee reads it: the formulary's (BNF, UK), whatever the
// trainee typed and whatever the catalogue keys it by.
func TestADrugHasOneNameEverywhere(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_1 acs-sildenafil", "give GTN 400 micrograms SL", "give epi 0.5 mg IM", "/handoff", "/aar"))
	var chat []string
	for _, m := range chatOf(events) {
		chat = append(chat, m.str("text"))
	}
	said := strings.Join(chat, "\n")
	for _, want := range []string{"Given: glyceryl trinitrate 400 micrograms SL.", "Given: adrenaline 500 micrograms IM."} {
		if !strings.Contains(said, want) {
			t.Errorf("the chat lacks %q:\n%s", want, said)
		}
	}
	for _, key := range []string{"nitroglycerin", "epinephrine"} {
		if strings.Contains(strings.ToLower(said), key) {
			t.Errorf("the chat names a drug by its catalogue key %q:\n%s", key, said)
		}
	}
}

// An investigation is answered from the engine's state: the lactate on arrival, then again once
// she is in septic shock, where a test the state gives no result for finds the arrival's; a test
// the case gives nothing for is done and said to change nothing.
func TestInvestigationsFollowTheState(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_1 sepsis-urosepsis", "lactate and blood cultures please",
		"/wait 20m", "repeat the lactate and dip the urine", "troponin please"))
	turns := byTurn(events)
	want := map[int][]string{
		1: {"Lactate: 4.2 mmol/L.", "Blood cultures: two sets taken"},
		3: {"Lactate: 6.8 mmol/L.", "Urine dipstick: leucocytes 3+"}, // septic shock gives no dip: the arrival's stands
		4: {"Troponin: done; nothing in it changes what to do now."},
	}
	for i, wants := range want {
		said := strings.Join(saidBy(turns[i], agents.AgentMonitor), "\n")
		for _, w := range wants {
			if !strings.Contains(said, w) {
				t.Errorf("turn %q: the Monitor said %q, want %q", turns[i][0].str("input"), said, w)
			}
		}
	}
	if state := r.engine("patient_1").CurrentState().Name(); state != "septic-shock" {
		t.Errorf("untreated for 20 minutes she is %s, want septic-shock", state)
	}
}

// What the trainee did is confirmed by the nurse, in plain words; no rule text, identifier or
// state reaches the chat, and the patient never recites it.
func TestConfirmationsComeFromTheNurseAndNoRuleTextReachesTheChat(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_4 hypoglycaemia", "give oxygen 15 L via non-rebreather", "check a BM",
		"IV access and glucose 10% 150 mL IV", "give propranolol 40 mg PO", "/wait 2m", "how are you feeling?"))
	nurse := strings.Join(saidBy(events, nurseAgent), "\n")
	for _, want := range []string{"Oxygen on by a non-rebreather mask at 15 L/min.", "Siting a cannula — access in about 60 s. Drawn up: glucose 150 mL of 10% IV, to go in once access is in (about 60 s).",
		"can't swallow safely (GCS 13), so not by mouth — nothing given of the propranolol."} {
		if !strings.Contains(nurse, want) {
			t.Errorf("the nurse did not say %q:\n%s", want, nurse)
		}
	}
	identifier := regexp.MustCompile(`\b[a-z]+_[a-z_]+\b|The patient changes|Done:`)
	for _, m := range chatOf(events) {
		text := m.str("text")
		if found := identifier.FindString(text); found != "" {
			t.Errorf("%s said %q, which carries %q", m.str("agent"), text, found)
		}
		if m.str("agent") == agents.AgentPatient && (strings.Contains(text, "Given") || strings.Contains(text, "Oxygen on")) {
			t.Errorf("the patient recited what was done: %q", text)
		}
	}
}

// A model Preceptor that leaves out the critical errors is asked once more; what it still leaves
// out then leads the debrief in the review's words.
func TestAModelDebriefIsHeldToTheReview(t *testing.T) {
	m := newScriptedModel(map[string][]string{agents.AgentPreceptor: {
		"Well done: you gave IM adrenaline and oxygen, and he improved.",
		"You also gave amoxicillin although he is allergic to penicillin.",
	}})
	r := withModel(t, m)
	for _, line := range []string{"/admit patient_7 anaphylaxis", "any allergies?", "give amoxicillin 500 mg PO, override", "IO access", "/wait 30s",
		"give adrenaline 50 mg IV, override",
		"give adrenaline 0.5 mg IM and oxygen 15L", "IV access and a 500 mL saline bolus"} {
		r.turn(line)
	}
	events := r.turn("/aar")
	if n := len(m.asked[agents.AgentPreceptor]); n != 2 {
		t.Fatalf("the Preceptor was asked %d times, want the debrief and one follow-up", n)
	}
	followUp := m.asked[agents.AgentPreceptor][1].Messages
	if ask := followUp[len(followUp)-1].Content; !strings.Contains(ask, "amoxicillin") || !strings.Contains(ask, "IV adrenaline bolus") {
		t.Errorf("the follow-up does not name what was left out: %q", ask)
	}
	said := onlyOne(t, agentMessages(events), "debrief").Text
	if !strings.HasPrefix(said, "**From the record**") || !strings.Contains(said, "An IV adrenaline bolus outside cardiac arrest") ||
		!strings.Contains(said, "Well done") || !strings.Contains(said, "You also gave amoxicillin") {
		t.Errorf("the debrief is not led by what the model still left out:\n%s", said)
	}
	if rep := aar.Of(r.engine("patient_7")); len(rep.Unnamed(said)) != 0 {
		t.Errorf("the debrief shown still leaves out %+v", rep.Unnamed(said))
	}
}

// A model Monitor that leaves a measurement out of its readout has the engine's line added.
func TestAModelMonitorReadoutIsCompleted(t *testing.T) {
	m := newScriptedModel(map[string][]string{agents.AgentMonitor: {"The vitals are as measured; keep watching the saturation."}})
	r := withModel(t, m)
	r.turn("/admit patient_4 hypoglycaemia")
	events := r.turn("@Monitor check vitals and capillary blood glucose")
	said := onlyOne(t, agentMessages(events), "readout")
	glucose := r.engine("patient_4").Results()[0]
	if said.Agent != agents.AgentMonitor || !strings.Contains(said.Text, "From the monitor:") ||
		!strings.Contains(said.Text, "Capillary glucose: "+glucose.Value) || !strings.Contains(said.Text, "Measured at T+00:00") {
		t.Errorf("the readout lacks the engine's measurements:\n%s", said.Text)
	}
}

// Emergency treatment for a patient who cannot give a history is credited in the debrief, not
// faulted for coming before an allergy history.
func TestRescueIsCreditedInTheDebrief(t *testing.T) {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_1 opioid-overdose", "jaw thrust, OPA and ventilate with the BVM", "naloxone 400 micrograms IM",
		"/wait 3m", "check vitals", "/aar"))
	debrief := strings.Join(saidBy(events, agents.AgentPreceptor), "\n")
	rep := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event"))
	var all []string
	for _, p := range rep.Debrief {
		all = append(all, p.Kind+": "+p.Text)
	}
	review := strings.Join(all, "\n")
	if !strings.Contains(review, "plus: Naloxone for opioid toxicity — given to a patient who could not give a history (GCS 7)") {
		t.Errorf("the review does not credit the naloxone:\n%s", review)
	}
	if strings.Contains(review+debrief, "naloxone given before asking about allergies") {
		t.Errorf("the naloxone is faulted for coming before an allergy history:\n%s", review)
	}
	if !strings.Contains(debrief, "What went well") {
		t.Errorf("no credit in the debrief:\n%s", debrief)
	}
}

// /scenarios numbers the cases by their presentation, and /admit takes the number, so a trainee
// can choose a case without reading its diagnosis.
func TestScenariosAreChosenByPresentation(t *testing.T) {
	r := seeded(t)
	list := r.s.cfg.Scenarios.List()
	events := runJSON(t, r.s, lines("/scenarios", "/admit patient_9 3"))
	shown := strings.Join(saidBy(events, memory.SystemAgent), "\n")
	for i, sc := range list {
		if !strings.Contains(shown, fmt.Sprintf("%2d  %s", i+1, sc.Presentation)) {
			t.Errorf("/scenarios lacks case %d, %q", i+1, sc.Presentation)
		}
		if strings.Contains(shown, sc.Title) || strings.Contains(shown, sc.ID) {
			t.Errorf("/scenarios names %s", sc.ID)
		}
	}
	if got := r.engine("patient_9").Scenario().ID; got != list[2].ID {
		t.Errorf("/admit patient_9 3 admitted %s, want case 3, %s", got, list[2].ID)
	}
}

// The fracture case's allergy is a true allergy, and her states follow what was given: morphine
// brings on anaphylaxis, never "untreated pain".
func TestMorphineGivesHerAnaphylaxisNotUntreatedPain(t *testing.T) {
	got := fractureStates(t, "morphine 10 mg IV")
	if !strings.HasPrefix(got, "acute-pain → anaphylaxis: morphine given to a patient with a true morphine allergy") ||
		strings.Contains(got, "untreated pain") {
		t.Errorf("after morphine the timeline says:\n%s", got)
	}
}

// Too small a dose leaves her pain uncontrolled at 15 minutes, and the timeline says so without
// calling a treated patient untreated.
func TestUndertreatedPainIsNotCalledUntreated(t *testing.T) {
	got := fractureStates(t, "paracetamol 1 g IV")
	if !strings.Contains(got, "acute-pain → uncontrolled: pain still not controlled 15 minutes on") || strings.Contains(got, "untreated") {
		t.Errorf("after paracetamol alone the timeline says:\n%s", got)
	}
}

// fractureStates is the state changes of the fracture case's timeline, one a line, after the
// order and 16 minutes.
func fractureStates(t *testing.T, order string) string {
	r := seeded(t)
	events := runJSON(t, r.s, lines("/admit patient_5 fracture-morphine-allergy", "IV access", "/wait 1m", order, "/wait 16m", "/aar"))
	rep := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event"))
	var states []string
	for _, e := range rep.Timeline {
		if e.Kind == "state" {
			states = append(states, e.Text)
		}
	}
	return strings.Join(states, "\n")
}
