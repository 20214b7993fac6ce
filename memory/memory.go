package memory

import (
	"strconv"
	"strings"
)

// Category names are the stored names, so `ward dump` reads like this list.
type Category string

const (
	CriticalActions    Category = "criticalActions"
	VitalsMeasurements Category = "vitalsMeasurements"
	PatientDisclosures Category = "patientDisclosures"
	StateHistory       Category = "stateHistory"
	KeyQuotes          Category = "keyQuotes"
	SceneEvents        Category = "sceneEvents"
	Assessments        Category = "assessments"
	Errors             Category = "errors"
	CompoundActions    Category = "compoundActions"
)

// Categories lists every category in render order: what the patient is and feels first, then what
// was done, then the rest.
var Categories = []Category{
	StateHistory, VitalsMeasurements, PatientDisclosures, CriticalActions, CompoundActions,
	Assessments, KeyQuotes, SceneEvents, Errors,
}

// Vitals is one measurement. A zero field was not measured: the engine reports arrest through a
// state change, never through a vitals reading of zero.
type Vitals struct {
	HR   float64 `json:"hr,omitempty"`
	RR   float64 `json:"rr,omitempty"`
	SpO2 float64 `json:"spo2,omitempty"`
	SBP  float64 `json:"sbp,omitempty"`
	DBP  float64 `json:"dbp,omitempty"`
	Temp float64 `json:"temp,omitempty"`
	GCS  float64 `json:"gcs,omitempty"`
}

// Item is one remembered fact. T is the session's sim clock in seconds. Topic is set on
// disclosures, Speaker on key quotes, Vitals on measurements; Text on everything else.
type Item struct {
	T       float64 `json:"t"`
	Text    string  `json:"text,omitempty"`
	Topic   Topic   `json:"topic,omitempty"`
	Speaker string  `json:"speaker,omitempty"`
	Vitals  *Vitals `json:"vitals,omitempty"`
}

// Memory is one patient's structured memory. Start is the sim time the patient's scenario began;
// elapsed time (rule 4, the window's 10-minute switch) is measured from it.
type Memory struct {
	Start              float64 `json:"start"`
	CriticalActions    []Item  `json:"criticalActions"`
	VitalsMeasurements []Item  `json:"vitalsMeasurements"`
	PatientDisclosures []Item  `json:"patientDisclosures"`
	StateHistory       []Item  `json:"stateHistory"`
	KeyQuotes          []Item  `json:"keyQuotes"`
	SceneEvents        []Item  `json:"sceneEvents"`
	Assessments        []Item  `json:"assessments"`
	Errors             []Item  `json:"errors"`
	CompoundActions    []Item  `json:"compoundActions"`
}

// New returns an empty memory for a scenario that began at sim time start.
func New(start float64) *Memory { return &Memory{Start: start} }

// Elapsed is how long the patient's scenario has been running at sim time now.
func (m *Memory) Elapsed(now float64) float64 { return now - m.Start }

// Items returns the items of one category, oldest first. The slice is the memory's own.
func (m *Memory) Items(c Category) []Item {
	if p := m.slot(c); p != nil {
		return *p
	}
	return nil
}

func (m *Memory) slot(c Category) *[]Item {
	switch c {
	case CriticalActions:
		return &m.CriticalActions
	case VitalsMeasurements:
		return &m.VitalsMeasurements
	case PatientDisclosures:
		return &m.PatientDisclosures
	case StateHistory:
		return &m.StateHistory
	case KeyQuotes:
		return &m.KeyQuotes
	case SceneEvents:
		return &m.SceneEvents
	case Assessments:
		return &m.Assessments
	case Errors:
		return &m.Errors
	case CompoundActions:
		return &m.CompoundActions
	}
	return nil
}

// Topic is what a disclosure is about. Questions use the same vocabulary, so a question about
// "meds" recalls disclosures filed under medications.
type Topic string

const (
	TopicAllergies         Topic = "allergies"
	TopicMedications       Topic = "medications"
	TopicContraindications Topic = "contraindications"
	TopicAdverseReactions  Topic = "adverse_reactions"
	TopicHistory           Topic = "history"
	TopicOnset             Topic = "onset"
	TopicPain              Topic = "pain"
	TopicLastMeal          Topic = "last_meal"
	TopicEvents            Topic = "events"
)

// safetyTopics are never filtered when a treatment is given and never pruned.
var safetyTopics = map[Topic]bool{
	TopicAllergies: true, TopicMedications: true, TopicContraindications: true, TopicAdverseReactions: true,
}

// IsSafety reports whether disclosures on this topic must reach every treatment turn.
func (t Topic) IsSafety() bool { return safetyTopics[t] }

var topicAliases = map[string]Topic{
	"allergy": TopicAllergies, "allergic": TopicAllergies,
	"medication": TopicMedications, "meds": TopicMedications, "medicine": TopicMedications,
	"medicines": TopicMedications, "drugs": TopicMedications,
	"contraindication": TopicContraindications,
	"adverse_reaction": TopicAdverseReactions, "reactions": TopicAdverseReactions,
	"reaction": TopicAdverseReactions,
	"pmh":      TopicHistory, "medical_history": TopicHistory, "past_history": TopicHistory,
	"when": TopicOnset, "start": TopicOnset, "started": TopicOnset,
	"meal": TopicLastMeal, "last_oral_intake": TopicLastMeal,
	"what_happened": TopicEvents, "event": TopicEvents,
}

// NormalizeTopic maps the parser's and the scenario's spellings onto one topic name.
func NormalizeTopic(s string) Topic {
	key := strings.ToLower(strings.TrimSpace(s))
	key = strings.NewReplacer(" ", "_", "-", "_").Replace(key)
	if t, ok := topicAliases[key]; ok {
		return t
	}
	return Topic(key)
}

func (v Vitals) String() string { return string(v.appendTo(make([]byte, 0, 64))) }

// appendTo writes the reading as String does, "HR 118 RR 26 SpO2 91% BP 104/68 T 38.2 GCS 15",
// leaving out what was not measured, without a format call per number: memory writes a line for
// every reading it prunes.
func (v Vitals) appendTo(b []byte) []byte {
	start := len(b)
	add := func(label string, x float64, unit string) {
		if x == 0 {
			return
		}
		if len(b) > start {
			b = append(b, ' ')
		}
		b = append(appendNumber(append(append(b, label...), ' '), x), unit...)
	}
	add("HR", v.HR, "")
	add("RR", v.RR, "")
	add("SpO2", v.SpO2, "%")
	if v.SBP != 0 || v.DBP != 0 {
		if len(b) > start {
			b = append(b, ' ')
		}
		b = appendNumber(append(appendNumber(append(b, "BP "...), v.SBP), '/'), v.DBP)
	}
	add("T", v.Temp, "")
	add("GCS", v.GCS, "")
	return b
}

// appendNumber drops a trailing ".0" so vitals read like a chart, not like floats: a whole
// number as an integer, any other to one decimal place.
func appendNumber(b []byte, x float64) []byte {
	if x == float64(int64(x)) {
		return strconv.AppendInt(b, int64(x), 10)
	}
	return strconv.AppendFloat(b, x, 'f', 1, 64)
}
