package scenario

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// Variants is what may differ from one admission of a case to the next, within bounds its author
// sets, so a trainee who meets the case again meets another patient with the same lesson. Each
// list left out keeps the case's own value.
type Variants struct {
	People []Person `yaml:"people"` // one is drawn: a name and the sex that goes with it
	// Age is the range [youngest, oldest] an age is drawn from.
	Age []int `yaml:"age"`
	// Allergies are alternatives: one is drawn, its allergy (if it names one) added to the case's
	// own, and its words are the patient's answer about allergies.
	Allergies []AllergyVariant `yaml:"allergies"`
	// Comorbidities are alternatives: one is drawn, added to the history, and its words to the
	// patient's answer about their history.
	Comorbidities []ComorbidityVariant `yaml:"comorbidities"`
	// Medications are alternatives: one is drawn, added to the regular medications, and its words
	// to the patient's answer about their medicines.
	Medications []MedicationVariant `yaml:"medications"`
	// Jitter is, by vital, the most the arrival value may move either way; the vital must be one
	// the initial state gives.
	Jitter map[string]float64 `yaml:"jitter"`
}

// Person is a name a variant may take, with the sex it goes with.
type Person struct {
	Name string `yaml:"name" required:"true"`
	Sex  string `yaml:"sex" required:"true"` // F, M or X
}

// AllergyVariant is an allergy a patient of the case may have (none when Allergy is left out),
// and what they say when asked about allergies, in place of the case's answer.
type AllergyVariant struct {
	Allergy *Allergy `yaml:"allergy" json:"allergy,omitempty"`
	Says    string   `yaml:"says" required:"true" json:"says"`
}

// ComorbidityVariant is a condition a patient of the case may also have, as the history says it
// and as they add it to their answer about their history.
type ComorbidityVariant struct {
	History string `yaml:"history" required:"true" json:"history"`
	Says    string `yaml:"says" required:"true" json:"says"`
}

// MedicationVariant is a regular medicine a patient of the case may also take, and what they add
// to their answer about their medicines.
type MedicationVariant struct {
	Medication Medication `yaml:"medication" required:"true" json:"medication"`
	Says       string     `yaml:"says" required:"true" json:"says"`
}

// Patient is one draw of a case's variants: what this admission's patient is. It is stored with
// the engine's snapshot, so a resumed shift has the same patient even if the case's lists change.
type Patient struct {
	Name        string              `json:"name"`
	Sex         string              `json:"sex"`
	Age         int                 `json:"age"`
	Allergy     *AllergyVariant     `json:"allergy,omitempty"`
	Comorbidity *ComorbidityVariant `json:"comorbidity,omitempty"`
	Medication  *MedicationVariant  `json:"medication,omitempty"`
	Jitter      map[string]float64  `json:"jitter,omitempty"` // the offset given to each arrival vital
}

// Draw picks this admission's patient from the case's variants, the same for the same seed; nil
// when the case declares none.
func (s *Scenario) Draw(seed uint64) *Patient {
	v := s.Variants
	if v == nil {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, 0x7761726470617469)) // "wardpati": apart from the engine's stream
	d := s.Demographics
	p := &Patient{Name: d.Name, Sex: d.Sex, Age: d.Age}
	if len(v.People) > 0 {
		who := v.People[r.IntN(len(v.People))]
		p.Name, p.Sex = who.Name, who.Sex
	}
	if len(v.Age) == 2 {
		p.Age = v.Age[0] + r.IntN(v.Age[1]-v.Age[0]+1)
	}
	if len(v.Allergies) > 0 {
		a := v.Allergies[r.IntN(len(v.Allergies))]
		p.Allergy = &a
	}
	if len(v.Comorbidities) > 0 {
		c := v.Comorbidities[r.IntN(len(v.Comorbidities))]
		p.Comorbidity = &c
	}
	if len(v.Medications) > 0 {
		m := v.Medications[r.IntN(len(v.Medications))]
		p.Medication = &m
	}
	for _, name := range slices.Sorted(maps.Keys(v.Jitter)) {
		if p.Jitter == nil {
			p.Jitter = map[string]float64{}
		}
		bound := v.Jitter[name]
		p.Jitter[name] = roundVital(name, (2*r.Float64()-1)*bound)
	}
	return p
}

// Extreme is the i-th of the patients a checker plays the case as: the i-th entry (in turn) of
// each list, the youngest or the oldest age, and every jitter at its bound, the signs set by i
// (all up, all down, then alternating each way), so a few samples meet every entry and every
// edge of the bounds that random draws would meet only by chance. nil when the case declares no
// variants.
func (s *Scenario) Extreme(i int) *Patient {
	v := s.Variants
	if v == nil {
		return nil
	}
	d := s.Demographics
	p := &Patient{Name: d.Name, Sex: d.Sex, Age: d.Age}
	if n := len(v.People); n > 0 {
		p.Name, p.Sex = v.People[i%n].Name, v.People[i%n].Sex
	}
	if len(v.Age) == 2 {
		p.Age = v.Age[i%2]
	}
	if n := len(v.Allergies); n > 0 {
		p.Allergy = &v.Allergies[i%n]
	}
	if n := len(v.Comorbidities); n > 0 {
		p.Comorbidity = &v.Comorbidities[i%n]
	}
	if n := len(v.Medications); n > 0 {
		p.Medication = &v.Medications[i%n]
	}
	for k, name := range slices.Sorted(maps.Keys(v.Jitter)) {
		if p.Jitter == nil {
			p.Jitter = map[string]float64{}
		}
		up := i%2 == 0
		if i%4 >= 2 && k%2 == 1 {
			up = !up
		}
		p.Jitter[name] = v.Jitter[name]
		if !up {
			p.Jitter[name] = -v.Jitter[name]
		}
	}
	return p
}

// Extremes is how many patients a checker plays the case as: four (the jitter's sign patterns),
// or the longest list, so each of its entries is met.
func (s *Scenario) Extremes() int {
	v := s.Variants
	if v == nil {
		return 0
	}
	return max(4, len(v.People), len(v.Allergies), len(v.Comorbidities), len(v.Medications))
}

// String is the patient as a checker's report names them.
func (p *Patient) String() string {
	out := fmt.Sprintf("%s, %d %s", p.Name, p.Age, p.Sex)
	if p.Allergy != nil && p.Allergy.Allergy != nil {
		out += ", allergic to " + p.Allergy.Allergy.Agent
	}
	if p.Comorbidity != nil {
		out += ", " + p.Comorbidity.History
	}
	if p.Medication != nil {
		out += ", on " + p.Medication.Medication.Name
	}
	for _, name := range slices.Sorted(maps.Keys(p.Jitter)) {
		out += fmt.Sprintf(", %s %+g", name, p.Jitter[name])
	}
	return out
}

// roundVital rounds an offset as the vital is charted: temperature and glucose to a tenth, the
// others to whole units.
func roundVital(name string, x float64) float64 {
	if name == TempC.String() || name == Glucose.String() {
		return math.Round(x*10) / 10
	}
	return math.Round(x)
}

// As is the case as patient p has it: their name, age and sex, the drawn allergy, comorbidity and
// medication added, and the arrival vitals moved by the jitter. The states, findings and lesson
// are the case's own; s is not changed. A nil p is the case as written.
func (s *Scenario) As(p *Patient) *Scenario {
	if p == nil {
		return s
	}
	v := *s
	v.Demographics.Name, v.Demographics.Sex, v.Demographics.Age = p.Name, p.Sex, p.Age
	v.Allergies = slices.Clone(s.Allergies)
	v.History = slices.Clone(s.History)
	v.Medications = slices.Clone(s.Medications)
	v.Disclosures = slices.Clone(s.Disclosures)
	if a := p.Allergy; a != nil {
		if a.Allergy != nil {
			v.Allergies = append(v.Allergies, *a.Allergy)
		}
		v.say(TopicAllergies, a.Says, false)
	}
	if c := p.Comorbidity; c != nil {
		v.History = append(v.History, c.History)
		v.say(TopicHistory, c.Says, true)
	}
	if m := p.Medication; m != nil {
		v.Medications = append(v.Medications, m.Medication)
		v.say(TopicMedications, m.Says, true)
	}
	v.States = make(map[string]*State, len(s.States))
	for name, st := range s.States {
		c := *st
		v.States[name] = &c
	}
	initial := *v.States[v.InitialState]
	initial.Vitals = maps.Clone(initial.Vitals)
	for name, d := range p.Jitter {
		if _, ok := initial.Vitals[name]; ok {
			initial.Vitals[name] += d
		}
	}
	v.States[v.InitialState] = &initial
	v.Transitions = slices.Clone(s.Transitions)
	for i := range v.Transitions {
		v.Transitions[i].When = slices.Clone(s.Transitions[i].When)
	}
	v.compile()
	return &v
}

// Topics a drawn patient's words answer.
const (
	TopicAllergies   = "allergies"
	TopicHistory     = "history"
	TopicMedications = "medications"
)

// say puts words into the patient's answers about topic: after each answer the case gives (add),
// or in its place; a new answer when the case gives none.
func (s *Scenario) say(topic, words string, add bool) {
	found := false
	for i, d := range s.Disclosures {
		if d.Topic != topic {
			continue
		}
		found = true
		if add {
			s.Disclosures[i].Text = d.Text + " " + words
		} else {
			s.Disclosures[i].Text = words
		}
	}
	if !found {
		s.Disclosures = append(s.Disclosures, Disclosure{Topic: topic, Text: words})
	}
}

// checkVariants reports bounds an author cannot mean: an age range that is not two ages in order,
// a sex that is not F, M or X, jitter on a vital the initial state does not give or not above 0.
func (c *checker) checkVariants(s *Scenario) {
	v := s.Variants
	if v == nil {
		return
	}
	for i, who := range v.People {
		if who.Sex != "F" && who.Sex != "M" && who.Sex != "X" {
			c.at(fmt.Sprintf("variants.people[%d].sex", i), "sex %q must be F, M or X", who.Sex)
		}
	}
	if a := v.Age; a != nil && (len(a) != 2 || a[0] < 0 || a[1] > 120 || a[0] > a[1]) {
		c.at("variants.age", "age must be [youngest, oldest] within 0–120, youngest first")
	}
	for i, a := range v.Allergies {
		if a.Allergy != nil {
			c.checkAllergy(*a.Allergy, fmt.Sprintf("variants.allergies[%d].allergy", i))
		}
	}
	for i, m := range v.Medications {
		if m.Medication.Class != "" && !KnownClass(m.Medication.Class) {
			c.at(fmt.Sprintf("variants.medications[%d].medication.class", i), "unknown drug class %q", m.Medication.Class)
		}
	}
	var arrival map[string]float64 // nil when the initial state is missing, which is reported apart
	if initial := s.States[s.InitialState]; initial != nil {
		arrival = initial.Vitals
	}
	for _, name := range slices.Sorted(maps.Keys(v.Jitter)) {
		path := "variants.jitter." + name
		if _, ok := ParseVital(name); !ok {
			c.at(path, "unknown vital %q", name)
		} else if _, given := arrival[name]; arrival != nil && !given {
			c.at(path, "jitter on %s, which the initial state does not give", name)
		}
		if v.Jitter[name] <= 0 {
			c.at(path, "jitter must be above 0")
		}
	}
}
