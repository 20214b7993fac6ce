package session

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
)

// Notes and handoffs are drafted deterministically from what happened in the session: what the
// patient disclosed, what was measured and what was done. Nothing the trainee has not found out
// appears in them, and every draft says it needs review.

const draftMark = "**DRAFT — for review before use.**"

// evidence is the session's evidence about one patient, as notes are written from it.
type evidence struct {
	who, complaint string
	disclosures    map[memory.Topic][]string
	reading        *physio.Reading
	signs          []string
	actions        []string
	alerts         []string
}

func evidenceOf(e *physio.Engine, mem *memory.Memory) evidence {
	sc := e.Scenario()
	d := sc.Demographics
	r := evidence{
		who:         fmt.Sprintf("%s (%s), %d %s, %s", d.Name, e.PatientID(), d.Age, d.Sex, d.Bed),
		complaint:   sc.ChiefComplaint,
		disclosures: map[memory.Topic][]string{},
	}
	if mem != nil {
		for _, it := range mem.Items(memory.PatientDisclosures) {
			r.disclosures[it.Topic] = append(r.disclosures[it.Topic], it.Text)
		}
	}
	if reading, ok := e.Measured(); ok {
		r.reading = &reading
	}
	if st := e.CurrentState(); st != nil {
		r.signs = st.Signs
	}
	for _, a := range e.Actions() {
		r.actions = append(r.actions, memory.Clock(a.T-e.Admitted())+" "+a.String())
	}
	for _, sf := range e.SafetyRecords() {
		r.alerts = append(r.alerts, fmt.Sprintf("%s on %s: %s", sf.Level, sf.Drug, sf.Reason))
	}
	return r
}

func (r evidence) told(topic memory.Topic) string {
	if said := r.disclosures[topic]; len(said) > 0 {
		return strings.Join(said, " ")
	}
	return "not yet asked"
}

func (r evidence) vitals() string {
	if r.reading == nil {
		return "no vitals measured yet"
	}
	return r.reading.String()
}

func (r evidence) done() string {
	if len(r.actions) == 0 {
		return "nothing yet"
	}
	return strings.Join(r.actions, "; ")
}

func (r evidence) safety() string {
	if len(r.alerts) == 0 {
		return "no safety alerts"
	}
	return strings.Join(r.alerts, "; ")
}

func soapNote(e *physio.Engine, mem *memory.Memory) string {
	r := evidenceOf(e, mem)
	return strings.Join([]string{
		"## SOAP note — " + r.who, draftMark,
		"**S:** " + r.complaint + " History: " + r.told(memory.TopicHistory) + " Medications: " + r.told(memory.TopicMedications) + " Allergies: " + r.told(memory.TopicAllergies),
		"**O:** " + r.vitals() + ". Observed: " + strings.Join(r.signs, ", ") + ".",
		"**A:** [clinician to complete] Safety: " + r.safety() + ".",
		"**P:** Done so far: " + r.done() + ". [plan to be confirmed]",
	}, "\n\n")
}

// handoff drafts a handoff in one of the three formats; sbar is the default.
func handoff(format string, e *physio.Engine, mem *memory.Memory) (string, error) {
	r := evidenceOf(e, mem)
	switch format {
	case "", "sbar":
		return strings.Join([]string{
			"## SBAR handoff — " + r.who, draftMark,
			"**S:** " + r.complaint + " Latest: " + r.vitals() + ".",
			"**B:** History: " + r.told(memory.TopicHistory) + " Medications: " + r.told(memory.TopicMedications) + " Allergies: " + r.told(memory.TopicAllergies),
			"**A:** Observed: " + strings.Join(r.signs, ", ") + ". Safety: " + r.safety() + ".",
			"**R:** [sender to complete] Done so far: " + r.done() + ".",
		}, "\n\n"), nil
	case "ipass":
		return strings.Join([]string{
			"## I-PASS handoff — " + r.who, draftMark,
			"**I (illness severity):** " + severity(r.reading) + ".",
			"**P (patient summary):** " + r.complaint + " " + r.vitals() + ".",
			"**A (action list):** " + r.done() + ".",
			"**S (situation awareness):** " + r.safety() + ". Allergies: " + r.told(memory.TopicAllergies),
			"**S (synthesis by receiver):** [receiver to read back]",
		}, "\n\n"), nil
	case "mist":
		return strings.Join([]string{
			"## MIST handoff — " + r.who, draftMark,
			"**M (mechanism / medical complaint):** " + r.complaint + " Onset: " + r.told(memory.TopicOnset),
			"**I (injuries / information):** Observed: " + strings.Join(r.signs, ", ") + ". History: " + r.told(memory.TopicHistory),
			"**S (signs):** " + r.vitals() + ".",
			"**T (treatment):** " + r.done() + ".",
		}, "\n\n"), nil
	}
	return "", fmt.Errorf("unknown handoff format %q: use sbar, ipass or mist", format)
}

// severity is I-PASS's illness severity from the measured NEWS2 band.
func severity(r *physio.Reading) string {
	switch {
	case r == nil:
		return "unknown — no vitals measured"
	case r.NEWS2 >= 7:
		return "unstable (NEWS2 " + fmt.Sprint(r.NEWS2) + ")"
	case r.NEWS2 >= 5 || r.Score().Band == physio.BandLowMedium:
		return "watcher (NEWS2 " + fmt.Sprint(r.NEWS2) + ")"
	}
	return "stable (NEWS2 " + fmt.Sprint(r.NEWS2) + ")"
}
