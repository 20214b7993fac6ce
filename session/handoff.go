package session

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
)

// Notes and handoffs are drafted deterministically from what happened in the session: what the
// patient (or someone for them) disclosed, what was measured and what was done. Nothing the
// trainee has not found out appears in them, every disclosure appears under its own label, and
// every draft says it needs review.

const draftMark = "**DRAFT — for review before use.**"

// The disclosure topics a note groups: the story of this illness, then the patient's background.
// A topic nobody asked about is left out, except the background every handoff must state.
var (
	situationTopics  = []memory.Topic{memory.TopicOnset, "symptoms", memory.TopicPain}
	backgroundTopics = []memory.Topic{memory.TopicHistory, memory.TopicMedications, memory.TopicAllergies, memory.TopicLastMeal, "social"}
	mustState        = map[memory.Topic]bool{memory.TopicHistory: true, memory.TopicMedications: true, memory.TopicAllergies: true}
)

var topicLabels = map[memory.Topic]string{
	memory.TopicOnset: "Onset", "symptoms": "Symptoms", memory.TopicPain: "Pain", memory.TopicHistory: "History",
	memory.TopicMedications: "Medications", memory.TopicAllergies: "Allergies", memory.TopicLastMeal: "Last meal",
	"social": "Social",
}

// evidence is the session's evidence about one patient, as notes are written from it.
type evidence struct {
	who, complaint string
	disclosures    map[memory.Topic][]string
	reading        *physio.Reading
	results        []string
	signs          []string
	actions        []string
	alerts         []string
	// From the engine's record: what a receiver must hear first (escalations and alarms, an
	// arrest, critical errors), the working diagnosis, and what is still waiting.
	events    []string
	diagnosis string
	pending   []string
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
	r.results = latestResults(e.Results())
	if st := e.CurrentState(); st != nil {
		r.signs = st.Signs
	}
	for _, a := range e.Actions() {
		r.actions = append(r.actions, memory.Clock(a.T-e.Admitted())+" "+a.String())
	}
	for _, sf := range e.SafetyRecords() {
		r.alerts = append(r.alerts, fmt.Sprintf("%s: %s", sf.Drug, sf.Reason))
	}
	r.events, r.pending = keyEvents(e)
	r.diagnosis = assessment(e)
	return r
}

// keyEvents are the record's moments a handoff must carry, oldest first, and what is still
// waiting: an escalation or alarm not yet reviewed, a result not back, a drug's review.
func keyEvents(e *physio.Engine) (events, pending []string) {
	at := func(t float64) string { return memory.Clock(t - e.Admitted()) }
	for _, a := range e.Alerts() {
		what := "Monitor alarm"
		if a.Kind == physio.AlertEscalation {
			what = "Nurse escalation (" + a.Level + ")"
		}
		if a.Repeats > 0 {
			what += fmt.Sprintf(", called %d times", a.Repeats+1)
		}
		events = append(events, at(a.Raised)+" "+what+`: "`+a.Text+`"`) // quoted: her words end in their own stop
		if a.Reviewed == nil {
			pending = append(pending, what+" raised at "+at(a.Raised)+" not yet reviewed")
		}
	}
	if a := e.Arrest(); a != nil {
		events = append(events, at(float64(a.Onset))+" cardiac arrest")
		if a.ROSC >= 0 {
			events = append(events, at(float64(a.ROSC))+" return of spontaneous circulation")
		}
	}
	for _, er := range e.CriticalErrors() {
		events = append(events, at(er.T)+" critical error: "+er.Description)
	}
	for _, w := range e.Awaited() {
		pending = append(pending, awaiting(w, at))
	}
	return events, pending
}

// awaiting is one thing still to come, as a handoff says it: a result awaited, or a drug's
// review due (or overdue).
func awaiting(w physio.Awaited, at func(float64) string) string {
	switch {
	case w.Due == 0:
		return fmt.Sprintf("%s result awaited (ordered at %s: %s)", w.What, at(w.T), w.Result)
	case w.Overdue:
		return fmt.Sprintf("review of the response to %s (given at %s) overdue since %s", w.What, at(w.T), at(w.Due))
	}
	return fmt.Sprintf("review of the response to %s (given at %s) due at %s", w.What, at(w.T), at(w.Due))
}

// situation lists what was told of this illness, one labelled line a topic.
func (r evidence) situation() string { return r.told(situationTopics) }

// background lists the patient's background, one labelled line a topic, and then anything else
// that was told, so nothing disclosed is left out; a topic every handoff must state says so
// when nobody asked.
func (r evidence) background() string {
	others := slices.Sorted(maps.Keys(r.disclosures))
	others = slices.DeleteFunc(others, func(t memory.Topic) bool { _, known := topicLabels[t]; return known })
	return joinLines(r.told(backgroundTopics), r.told(others))
}

func (r evidence) told(topics []memory.Topic) string {
	var lines []string
	for _, t := range topics {
		label, ok := topicLabels[t]
		if !ok {
			label = agents.Capitalized(strings.ReplaceAll(string(t), "_", " "))
		}
		switch said := r.disclosures[t]; {
		case len(said) > 0:
			lines = append(lines, "- "+label+": "+strings.Join(said, " "))
		case mustState[t]:
			lines = append(lines, "- "+label+": not asked yet")
		}
	}
	return strings.Join(lines, "\n")
}

// joinLines joins the parts that say something, one to a line.
func joinLines(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "\n")
}

func (r evidence) vitals() string {
	if r.reading == nil {
		return "no vitals measured yet"
	}
	v := r.reading.String()
	if len(r.results) > 0 {
		v += "; " + strings.Join(r.results, "; ")
	}
	return v
}

func (r evidence) done() string {
	if len(r.actions) == 0 {
		return "nothing yet"
	}
	return strings.Join(r.actions, "; ")
}

// safety is what a receiver must know first: the drug safety alerts, then the key events.
func (r evidence) safety() string {
	all := append(slices.Clone(r.alerts), r.events...)
	if len(all) == 0 {
		return "no safety alerts, escalations or critical events"
	}
	return strings.Join(all, "; ")
}

// waiting is what is still pending for the receiver.
func (r evidence) waiting() string {
	if len(r.pending) == 0 {
		return "nothing recorded as pending"
	}
	return strings.Join(r.pending, "; ")
}

func (r evidence) observed() string {
	if len(r.signs) == 0 {
		return "nothing recorded"
	}
	return strings.Join(r.signs, ", ")
}

func soapNote(e *physio.Engine, mem *memory.Memory) string {
	r := evidenceOf(e, mem)
	return strings.Join([]string{
		"## SOAP note — " + r.who, draftMark,
		"**S:** " + joinLines(r.complaint, r.situation(), r.background()),
		"**O:** " + r.vitals() + ". Observed: " + r.observed() + ".",
		"**A:** " + assessment(e) + " Safety: " + r.safety() + ".",
		"**P:** Done so far: " + r.done() + ". [plan to be confirmed]",
	}, "\n\n")
}

// assessment is the trainee's working diagnosis, as they last committed to it, or a gap for the
// clinician to fill.
func assessment(e *physio.Engine) string {
	d := e.Diagnoses()
	if len(d) == 0 {
		return "[clinician to complete]"
	}
	return fmt.Sprintf("Working diagnosis: %s (at %s).", d[len(d)-1].Text, physio.SimTime(d[len(d)-1].T-e.Admitted()))
}

// handoff drafts a handoff in one of the three formats; sbar is the default.
func handoff(format string, e *physio.Engine, mem *memory.Memory) (string, error) {
	r := evidenceOf(e, mem)
	switch format {
	case "", "sbar":
		return strings.Join([]string{
			"## SBAR handoff — " + r.who, draftMark,
			"**S:** " + joinLines(r.complaint+" Latest: "+r.vitals()+".", r.situation()),
			"**B:**\n" + r.background(),
			"**A:** " + r.diagnosis + " Observed: " + r.observed() + ". Safety: " + r.safety() + ".",
			"**R:** [sender to complete] Done so far: " + r.done() + ". Pending: " + r.waiting() + ".",
		}, "\n\n"), nil
	case "ipass":
		return strings.Join([]string{
			"## I-PASS handoff — " + r.who, draftMark,
			"**I (illness severity):** " + severity(r.reading) + ".",
			"**P (patient summary):** " + joinLines(r.complaint+" Latest: "+r.vitals()+".", r.situation(), r.background()),
			"**A (action list):** Done: " + r.done() + ". Pending: " + r.waiting() + ".",
			"**S (situation awareness):** " + r.diagnosis + " " + r.safety() + ".",
			"**S (synthesis by receiver):** [receiver to read back]",
		}, "\n\n"), nil
	case "mist":
		return strings.Join([]string{
			"## MIST handoff — " + r.who, draftMark,
			"**M (mechanism / medical complaint):** " + joinLines(r.complaint, r.situation()),
			"**I (injuries / information):** " + joinLines(r.diagnosis+" Observed: "+r.observed()+". Key events: "+r.safety()+".", r.background()),
			"**S (signs):** " + r.vitals() + ".",
			"**T (treatment):** " + r.done() + ". Pending: " + r.waiting() + ".",
		}, "\n\n"), nil
	}
	return "", fmt.Errorf("unknown handoff format %q: use sbar, ipass or mist", format)
}

// severity is I-PASS's illness severity from the measured NEWS2 band.
func severity(r *physio.Reading) string {
	if r == nil {
		return "unknown — no vitals measured"
	}
	n := r.Score()
	switch n.Band {
	case physio.BandHigh:
		return "unstable (" + n.String() + ")"
	case physio.BandMedium, physio.BandLowMedium:
		return "watcher (" + n.String() + ")"
	}
	return "stable (" + n.String() + ")"
}
