package session

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// scene gives the offline backend the facts it plays from. Every field is something the engine
// or the scenario already decided, so an offline reply never invents a number or a verdict.
func (s *Session) scene(agent string, ct *clinicalTurn) *agents.Scene {
	scene := &agents.Scene{Agent: agent}
	if ct.engine == nil {
		return scene
	}
	scene.Persona = persona(ct.engine)
	scene.Disclosures = ct.disclosures
	scene.Reactions = reactions(ct.events)
	scene.Team = s.teamFacts(ct)
	scene.Entities = s.offlineDelta(agent, ct)
	return scene
}

func persona(e *physio.Engine) *agents.Persona {
	s := e.Scenario()
	lines := s.Lines.Generic
	if st := e.CurrentState(); st != nil && len(st.Lines) > 0 {
		lines = st.Lines // how the patient sounds now outweighs their usual lines
	}
	d := s.Demographics
	return &agents.Persona{Name: d.Name, Age: d.Age, Sex: d.Sex, ChiefComplaint: s.ChiefComplaint,
		Opening: s.Lines.Opening, Lines: lines}
}

// reactions are the engine's events narrated at the bedside: what was done, what was measured,
// and what the engine objected to.
func reactions(events []physio.Event) []string {
	var out []string
	for _, ev := range events {
		switch ev.Kind {
		case physio.EventAction:
			if ev.Action.IsTreatment() {
				out = append(out, "Done: "+ev.Action.String()+".")
			}
		case physio.EventVitals:
			line := "Vitals: " + ev.Reading.String() + "."
			if !slices.Contains(out, line) { // a check and a monitor's first reading agree
				out = append(out, line)
			}
		case physio.EventSafety:
			out = append(out, fmt.Sprintf("Safety %s on %s: %s", ev.Safety.Level, ev.Safety.Drug, ev.Safety.Reason))
		case physio.EventState:
			out = append(out, "The patient changes: "+ev.State.Reason)
		case physio.EventCriticalError:
			out = append(out, "Critical error: "+ev.Error.Description)
		}
	}
	return out
}

// teamFacts are the engine's facts the non-Patient agents voice offline.
func (s *Session) teamFacts(ct *clinicalTurn) agents.TeamFacts {
	f := agents.TeamFacts{Input: ct.text}
	e := ct.engine
	for _, r := range e.Readings() {
		score := r.NEWS2
		f.Readings = append(f.Readings, agents.VitalsReading{T: r.T, Vitals: memoryVitals(r), NEWS2: &score})
	}
	for _, a := range e.Actions() {
		if a.Kind == sc.KindMedication {
			f.Orders = append(f.Orders, agents.MedicationOrder{Drug: a.Drug, DoseMg: a.DoseMg, Route: a.Route})
		}
	}
	for _, sf := range e.SafetyRecords() {
		f.Verdicts = append(f.Verdicts, agents.SafetyVerdict{Level: sf.Level, Drug: sf.Drug, Reason: sf.Reason})
	}
	for _, drug := range drugsNamed(ct.text) { // asked about, not given: the verdict, recording nothing
		for _, sf := range e.CheckMedication(drug) {
			f.Verdicts = append(f.Verdicts, agents.SafetyVerdict{Level: sf.Level, Drug: sf.Drug, Reason: sf.Reason})
		}
	}
	if ct.wantsAAR {
		f.AAR = aarDigest(e.Report())
	}
	return f
}

func memoryVitals(r physio.Reading) memory.Vitals {
	return memory.Vitals{HR: float64(r.HR), RR: float64(r.RR), SpO2: float64(r.SpO2), SBP: float64(r.SBP),
		DBP: float64(r.DBP), Temp: r.TempC, GCS: float64(r.GCS)}
}

// drugsNamed are the catalogue drugs a message names, in order, each once.
func drugsNamed(text string) []string {
	var out []string
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '-'
	}) {
		if d, ok := sc.LookupDrug(word); ok && !slices.Contains(out, d.Name) {
			out = append(out, d.Name)
		}
	}
	return out
}

// aarDigest is the review as plain lines: the score, then each plus and delta.
func aarDigest(r physio.Report) string {
	lines := []string{fmt.Sprintf("Score %d / %d.", r.Score.Total, r.Score.Max)}
	for _, p := range r.Plus {
		lines = append(lines, "Plus: "+p)
	}
	for _, d := range r.Delta {
		lines = append(lines, "Delta: "+d)
	}
	return strings.Join(lines, "\n")
}
