package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory/knowledge"
)

// withKnowledge is a rig whose team answers from the built-in cards and those in dir ("" for
// none).
func withKnowledge(t *testing.T, dir string) *rig {
	return newRigWith(t, func(c *Config) { c.Knowledge = knowledge.New(knowledge.Options{Dir: dir}) })
}

const adrenalineQuestion = "what is the adult IM dose of adrenaline in anaphylaxis?"

// /ask puts a protocol question to the Preceptor, who answers offline by quoting the best passage
// with its citation; the chat and the store carry the source under the message, and nothing
// happens at the bedside. The first question builds the index, and says how far it has got.
func TestAskAnswersFromTheCardsWithItsSource(t *testing.T) {
	r := withKnowledge(t, "")
	events := runJSON(t, r.s, lines("/admit patient_1 anaphylaxis", "/ask "+adrenalineQuestion))
	turns := byTurn(events)
	said := onlyOne(t, ofKind(turns[1], "message"), "answer")
	if said.str("agent") != agents.AgentPreceptor || !strings.Contains(said.str("text"), "0.5 mg") || !strings.Contains(said.str("text"), "[") {
		t.Errorf("the answer %v, want the Preceptor quoting the adult dose with its citation", said)
	}
	sources := strs(said["sources"])
	if len(sources) != 1 || !strings.Contains(sources[0], "Anaphylaxis › Adrenaline — Resuscitation Council UK") {
		t.Errorf("sources %q, want the anaphylaxis card's adrenaline section and its body", sources)
	}
	progress := ofKind(turns[1], "progress")
	if n := len(progress); n == 0 || progress[n-1].num("done") != progress[n-1].num("total") || progress[n-1].str("stage") != "index" {
		t.Errorf("the first question built the index with progress %v, want it reported to the end", progress)
	}
	for _, kind := range []string{"action", "order", "vitals"} {
		if n := len(ofKind(turns[1], kind)); n != 0 {
			t.Errorf("a question about the guidance made %d %s events at the bedside", n, kind)
		}
	}
	stored := r.dump().Histories["patient_1"]
	if last := stored[len(stored)-1]; !slices.Equal(last.Sources, sources) {
		t.Errorf("the stored answer keeps sources %q, want %q", last.Sources, sources)
	}
	usage := onlyOne(t, ofKind(byTurn(runJSON(t, r.s, "/ask\n"))[0], "error"), "error")
	if usage.str("code") != "USAGE" || !strings.Contains(usage.str("message"), "/ask QUESTION") {
		t.Errorf("/ask with no question said %v", usage)
	}
}

// A protocol question typed without /ask goes to the Preceptor when there is no router model, and
// measures nothing: "target oxygen saturation" is not a request for vitals.
func TestAProtocolQuestionIsAnsweredNotActedOn(t *testing.T) {
	r := withKnowledge(t, "")
	turns := byTurn(runJSON(t, r.s, lines("/admit patient_1 asthma-exacerbation",
		"what is the target oxygen saturation for most acutely ill patients?")))
	said := onlyOne(t, ofKind(turns[1], "message"), "answer")
	if said.str("agent") != agents.AgentPreceptor || !strings.Contains(said.str("text"), "94–98%") {
		t.Errorf("the answer %v, want the Preceptor quoting 94–98%%", said)
	}
	if n := len(ofKind(turns[1], "vitals")); n != 0 {
		t.Errorf("the question measured the vitals %d times", n)
	}
}

// In the library's new areas the Preceptor answers from their own cards: an obstetric, a
// paediatric and a prehospital trauma case, each asked what its critical actions turn on.
func TestTheNewCasesAreAnsweredFromTheirCards(t *testing.T) {
	for _, tc := range []struct{ scenario, question, source, says string }{
		{"postpartum-haemorrhage", "can I give ergometrine to a woman with pre-eclampsia who is bleeding after birth?",
			"Severe pre-eclampsia and eclampsia › Blood pressure, fluids and delivery — NICE", "Never give ergometrine to a woman with pre-eclampsia"},
		{"paediatric-arrest", "what dose of adrenaline in a paediatric arrest with PEA?",
			"Paediatric cardiac arrest › Non-shockable rhythms: asystole and PEA — Resuscitation Council UK", "10 micrograms/kg"},
		{"major-haemorrhage-prehospital", "when is tranexamic acid given in trauma and how much?",
			"Major trauma, the primary survey and major haemorrhage › Fluids, blood and tranexamic acid — NICE", "within 3 hours of injury"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			r := withKnowledge(t, "")
			turns := byTurn(runJSON(t, r.s, lines("/admit patient_1 "+tc.scenario, "/ask "+tc.question)))
			said := onlyOne(t, ofKind(turns[1], "message"), "answer")
			sources := strs(said["sources"])
			if said.str("agent") != agents.AgentPreceptor || !strings.Contains(said.str("text"), tc.says) ||
				len(sources) != 1 || !strings.Contains(sources[0], tc.source) {
				t.Errorf("the answer %v with sources %q; want the Preceptor quoting %q from %s", said, sources, tc.says, tc.source)
			}
		})
	}
}

// The passages travel in the dynamic context, where the KV cache expects change, never in the
// static prefix; the Patient gets none.
func TestPassagesAreInTheDynamicContextOnly(t *testing.T) {
	r := withKnowledge(t, "")
	r.turn("/admit patient_1 anaphylaxis")
	in := "@Pharmacist " + adrenalineQuestion
	r.turn(in)
	call := callsOf(t, r, in)[0]
	if static := call.Trace.Messages[0].Content; strings.Contains(static, `"knowledge":[`) {
		t.Error("the static prefix carries passages; it would change from turn to turn")
	}
	if facts := dynamicContext(t, call); !strings.Contains(facts, `"knowledge":[{"n":1,"card":"anaphylaxis"`) {
		t.Errorf("the dynamic context lacks the numbered passages:\n%s", facts)
	}
	if len(call.Retrieved) == 0 || call.Retrieved[0].Why.LexicalRank != 1 {
		t.Errorf("the inspector's record %+v, want the passages with how they ranked", call.Retrieved)
	}
	r.turn("how are you feeling?")
	patient := callsOf(t, r, "how are you feeling?")[0]
	if strings.Contains(dynamicContext(t, patient), `"knowledge":[`) || len(patient.Retrieved) != 0 {
		t.Error("the Patient was given protocol passages")
	}
}

// A model that cites a passage it was not given has that citation removed and counted, and the
// inspector says so; the citations it was given stay, with their sources under the message.
func TestCitationsOfPassagesNotGivenAreRemoved(t *testing.T) {
	m := newScriptedModel(map[string][]string{agents.AgentPharmacist: {"Give 0.5 mg IM into the thigh [1]; repeat after 5 minutes [9]."}})
	r := withModel(t, m)
	r.cfg.Knowledge = knowledge.New(knowledge.Options{})
	r.restart()
	r.turn("/admit patient_1 anaphylaxis")
	in := "@Pharmacist " + adrenalineQuestion
	said := onlyOne(t, agentMessages(r.turn(in)), "answer")
	if said.Text != "Give 0.5 mg IM into the thigh [1]; repeat after 5 minutes." || len(said.Sources) != 1 || !strings.HasPrefix(said.Sources[0], "[1] ") {
		t.Errorf("said %q with sources %q, want [9] removed and [1]'s source", said.Text, said.Sources)
	}
	if n := r.s.entities().Stats.CitationsRemoved; n != 1 {
		t.Errorf("%d citations counted as removed, want 1", n)
	}
	call := callsOf(t, r, in)[0]
	if !strings.Contains(call.Held, "1 citation(s) of passages it was not given were removed") ||
		len(call.Retrieved) == 0 || call.Retrieved[0].N != 1 || !strings.Contains(fmt.Sprint(call.Retrieved[0].Why), "lexical #1") {
		t.Errorf("the call's record does not show the removal (held %q) and the retrieval %+v", call.Held, call.Retrieved)
	}
}

// The trainee's own cards (--knowledge DIR) answer beside the built-in ones, cited by their file
// when they name no source.
func TestUsersCardsAnswerWithTheirFile(t *testing.T) {
	dir := t.TempDir()
	card := "# Local sepsis pathway\n\n## Blood cultures\n\nTake two sets of blood cultures from separate sites before the first antibiotic dose, within the first hour.\n"
	if err := os.WriteFile(filepath.Join(dir, "local-sepsis.md"), []byte(card), 0o600); err != nil {
		t.Fatal(err)
	}
	r := withKnowledge(t, dir)
	turns := byTurn(runJSON(t, r.s, "/ask how many sets of blood cultures should we take before antibiotics?\n"))
	said := onlyOne(t, ofKind(turns[0], "message"), "answer")
	sources := strs(said["sources"])
	if !strings.Contains(said.str("text"), "two sets of blood cultures") || len(sources) != 1 || !strings.Contains(sources[0], "local-sepsis.md") {
		t.Errorf("said %q citing %q, want the user's card and its file", said.str("text"), sources)
	}
}
