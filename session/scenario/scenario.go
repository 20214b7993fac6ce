// Package scenario holds the clinical ground truth of ward's simulated
// patients: the scenario schema and its validation, the built-in library,
// shifts, and the drug catalogue that safety checks reason about.
package scenario

import "strings"

// Scenario is one patient's case. Fields tagged required must be present in
// YAML; Validate reports what is missing with line numbers.
type Scenario struct {
	ID             string       `yaml:"id" required:"true"`
	Title          string       `yaml:"title" required:"true"`
	Demographics   Demographics `yaml:"demographics" required:"true"`
	ChiefComplaint string       `yaml:"chief_complaint" required:"true"`
	// Presentation is what a triage note or a handover says of the patient on arrival, without
	// the demographics the header already shows and without the diagnosis: the trainee sees
	// this, never the title.
	Presentation string `yaml:"presentation" required:"true"`
	// Setting is where the case happens: "hospital" (the default) or "prehospital", an ambulance
	// crew's call (JRCALC) with a Scene, the Kit the crew carries, and a conveyance decision
	// (Conveyances) in place of a disposition.
	Setting     string       `yaml:"setting"`
	Scene       string       `yaml:"scene"` // what the crew finds on arrival: where, who, what is around
	Kit         []string     `yaml:"kit"`   // the drugs the ambulance carries; the case's drugs come from it
	Bystander   *Bystander   `yaml:"bystander"`
	History     []string     `yaml:"history"`
	Medications []Medication `yaml:"medications"`
	Allergies   []Allergy    `yaml:"allergies"`
	Disclosures []Disclosure `yaml:"disclosures"`
	Lines       Lines        `yaml:"lines"`
	// Access is the vascular access the patient arrives with: "" (none), "iv" or "io". Without
	// it, an IV or IO drug waits for the trainee to site one.
	Access string `yaml:"access"`
	// Side is the side of a one-sided chest problem (a pneumothorax), "left" or "right": a
	// decompression or chest drain of the other side treats nothing and is a critical error. A
	// cardiac arrest's cause may give it instead. A one-sided limb is Limb.
	Side string `yaml:"side"`
	Limb *Limb  `yaml:"limb"`
	// NilByMouth is why nothing may be given by mouth ("for theatre"); empty: no such order.
	NilByMouth         string               `yaml:"nil_by_mouth"`
	NEWS2              NEWS2Config          `yaml:"news2" required:"true"`
	InitialState       string               `yaml:"initial_state" required:"true"`
	States             map[string]*State    `yaml:"states" required:"true"`
	Transitions        []Transition         `yaml:"transitions"`
	Interventions      []Intervention       `yaml:"interventions"`
	Contraindications  []Contraindication   `yaml:"contraindications"`
	CriticalActions    []CriticalAction     `yaml:"critical_actions"`
	CriticalErrors     []CriticalError      `yaml:"critical_errors"`
	Monitoring         Monitoring           `yaml:"monitoring"`
	Rescue             []Rescue             `yaml:"rescue"`
	Scoring            Scoring              `yaml:"scoring" required:"true"`
	LearningObjectives []string             `yaml:"learning_objectives" required:"true"`
	Findings           Findings             `yaml:"findings"`
	Tags               []string             `yaml:"tags"`       // what a shift may ask a mix by
	Difficulty         string               `yaml:"difficulty"` // foundation | intermediate | advanced
	Diagnosis          *DiagnosisKey        `yaml:"diagnosis"`
	Disposition        *DispositionKey      `yaml:"disposition"`
	Reflection         []ReflectiveQuestion `yaml:"reflection"`
	Arrest             *Arrest              `yaml:"arrest"` // how a cardiac arrest in the case plays
	// TeamRoles are the roles a resuscitation team of the case may have beyond the five every
	// team may (teamroles.go).
	TeamRoles []TeamRole `yaml:"team_roles"`
	// Variants is what may differ between admissions of the case (variants.go); nil: none.
	Variants *Variants `yaml:"variants"`

	// Source is "builtin" or the file the scenario was loaded from.
	Source string `yaml:"-"`

	conditions int            // total transition conditions, for the engine's flag arrays
	lines      map[string]int // the line of each YAML path, for a checker's problems (Line)
}

// Line is the line of the file a path of the scenario ("states.worse", "transitions[1]") was
// read from, or of its nearest parent; 0 when unknown.
func (s *Scenario) Line(path string) int {
	for {
		if line, ok := s.lines[path]; ok {
			return line
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return 0
		}
		path = path[:i]
	}
}

type Demographics struct {
	Name string `yaml:"name" required:"true"`
	Age  int    `yaml:"age" required:"true"`
	Sex  string `yaml:"sex" required:"true"` // F, M or X
	Bed  string `yaml:"bed"`                 // default bed when a shift does not say
	// WeightKg doses drugs given per kg; 0 means not recorded, and dose
	// checks then take ReferenceWeightKg.
	WeightKg float64 `yaml:"weight_kg"`
}

type Medication struct {
	Name  string `yaml:"name" required:"true"`
	Dose  string `yaml:"dose"`
	Class string `yaml:"class"`
	// LastTakenHours matters for drugs with timed interactions (PDE5
	// inhibitors and nitrates); nil means the patient has not said.
	LastTakenHours *float64 `yaml:"last_taken_hours"`
}

type Allergy struct {
	Agent     string `yaml:"agent" required:"true"`
	DrugClass string `yaml:"drug_class"` // required when the agent is a drug
	Reaction  string `yaml:"reaction" required:"true"`
	Severity  string `yaml:"severity" required:"true"` // one of Severities
	// Effects is the body's response if the agent is given anyway; empty
	// means the engine's generic allergic reaction.
	Effects []Effect `yaml:"effects"`
}

// TrueAllergy is false for intolerances (nausea with codeine, say).
func (a Allergy) TrueAllergy() bool { return a.Severity != "intolerance" }

type Disclosure struct {
	Topic  string `yaml:"topic" required:"true"`
	Text   string `yaml:"text" required:"true"`
	Reveal string `yaml:"reveal"` // always | when_asked (default)
}

// Bystander is a relative or friend at the bedside who answers, from their own disclosures,
// what the patient is too unwell to tell.
type Bystander struct {
	Name        string       `yaml:"name" required:"true"`
	Relation    string       `yaml:"relation" required:"true"` // as the chat names them: "his wife"
	Disclosures []Disclosure `yaml:"disclosures" required:"true"`
}

// Lines are what an offline patient says when nothing more specific applies.
type Lines struct {
	Opening string   `yaml:"opening"`
	Generic []string `yaml:"generic"`
}

// NEWS2Config says which SpO2 scale suits the patient. Every patient is scored on Scale 1 until
// the trainee prescribes a target of 88–92 %, which the engine accepts only for a patient with
// hypercapnia (Scale 2) once the trainee has it documented: one of HypercapniaFrom, a test
// (a blood gas) or a topic asked about (a history that tells of an oxygen alert card).
type NEWS2Config struct {
	Scale int `yaml:"scale" required:"true"` // 1, or 2 for hypercapnic patients
	// HypercapnicTarget marks a patient for whom a prescribed SpO2 target of 88–92 % is right,
	// the only case in which Scale 2 may be used.
	HypercapnicTarget bool     `yaml:"hypercapnic_target"`
	HypercapniaFrom   []string `yaml:"hypercapnia_from"`
}

// State is one phase of the illness. Vitals approach Vitals (inheriting from
// the initial state whatever is not given) with per-vital time constants.
type State struct {
	Description string   `yaml:"description"`
	Rhythm      string   `yaml:"rhythm"`
	Pupils      string   `yaml:"pupils"` // empty: as in the initial state, or normal there
	Signs       []string `yaml:"signs"`
	Lines       []string `yaml:"lines"` // in-character lines while in this state
	// Disclosures are what the patient says in this state about a topic that changes with it
	// (how they feel, their pain), in place of the scenario's answer given on arrival.
	Disclosures []Disclosure `yaml:"disclosures"`
	// Results are what each investigation (Tests) finds in this state; a state that gives none
	// of a test finds what the initial state gives.
	Results map[string]string  `yaml:"results"`
	Vitals  map[string]float64 `yaml:"vitals" required:"true"`
	Tau     map[string]Seconds `yaml:"tau"`
	// Findings override the scenario's Findings while the patient is in this state.
	Findings Findings `yaml:"findings"`
	// Course is where the state is heading if nothing is done, and how fast: the vitals move
	// toward that state's all the while, so an untreated patient worsens minute by minute. Left
	// out, it is the first transition out of the state on time alone, at that time.
	Course *Course `yaml:"course"`

	name     string
	rhythm   Rhythm   // Rhythm as ParseRhythm reads it
	findings Findings // every region, resolved against the scenario's baseline
	toward   *State   // where the course leads; nil: the state holds
	over     float64  // seconds the course takes
	target   [NumVitals]float64
	alpha    [NumVitals]float64 // share of the gap to target closed per sim second
	out      []int              // indexes of transitions leaving this state
}

// Course is a state's drift toward another state over a time.
type Course struct {
	To   string  `yaml:"to" required:"true"`
	Over Seconds `yaml:"over" required:"true"`
}

// Transition moves the patient from one of From to To when its conditions
// hold: any one of them (mode any, the default) or all of them.
type Transition struct {
	From   Names       `yaml:"from" required:"true"`
	To     string      `yaml:"to" required:"true"`
	Mode   string      `yaml:"mode"`
	When   []Condition `yaml:"when" required:"true"`
	Reason string      `yaml:"reason"`

	firstCondition int
}

// Condition is exactly one of: time in the current state; an action done
// while in the current state (Action); an action done at any time (Done); a
// vital below or above a threshold, held for For seconds.
type Condition struct {
	TimeInState *Seconds `yaml:"time_in_state"`
	Action      *Match   `yaml:"action"`
	Done        *Match   `yaml:"done"`
	Vital       string   `yaml:"vital"`
	Below       *float64 `yaml:"below"`
	Above       *float64 `yaml:"above"`
	For         Seconds  `yaml:"for"`

	vital Vital
}

// Match selects actions. Empty fields match anything; list fields match any
// of their entries. Minimums fail when the action does not state the value;
// maximums pass.
type Match struct {
	Kind        Names   `yaml:"kind" required:"true"`
	Drug        Names   `yaml:"drug"`
	Class       Names   `yaml:"class"`
	Route       Names   `yaml:"route"`
	Device      Names   `yaml:"device"`
	Topic       Names   `yaml:"topic"`
	Test        Names   `yaml:"test"`
	Position    Names   `yaml:"position"`
	Region      Names   `yaml:"region"` // an examination's region (Regions)
	Team        Names   `yaml:"team"`   // the team a referral calls (Teams)
	Rhythm      Names   `yaml:"rhythm"` // the rhythm the trainee named (name_rhythm): Rhythms, or VF for either VF
	MinDoseMg   float64 `yaml:"min_dose_mg"`
	MaxDoseMg   float64 `yaml:"max_dose_mg"`
	MinVolumeML float64 `yaml:"min_volume_ml"`
	MinFiO2     float64 `yaml:"min_fio2"` // percent, as delivered by the device
	MaxFiO2     float64 `yaml:"max_fio2"`
	MaxTarget   float64 `yaml:"max_target"` // the highest SpO2 a prescribed target may aim for, percent
}

// Intervention: the first intervention whose match fits an action applies
// its effects, so list specific matches before general ones.
type Intervention struct {
	Match   Match    `yaml:"match" required:"true"`
	Effects []Effect `yaml:"effects" required:"true"`
}

// Effect shifts a vital's target by Delta from Onset seconds after the action
// for Duration seconds (0: until cancelled), never past Cap.
type Effect struct {
	Vital    string   `yaml:"vital" required:"true"`
	Delta    float64  `yaml:"delta" required:"true"`
	Onset    Seconds  `yaml:"onset"`
	Duration Seconds  `yaml:"duration"`
	Cap      *float64 `yaml:"cap"`
	// Ramp is how long after its onset the effect takes to reach full strength (the engine sets
	// it from a drug's time to peak).
	Ramp Seconds `yaml:"-"`
}

// Contraindication is a scenario-specific reason not to give a drug or class.
type Contraindication struct {
	Drug    Names    `yaml:"drug"`
	Class   Names    `yaml:"class"`
	Level   string   `yaml:"level" required:"true"` // hard_stop | warn
	Reason  string   `yaml:"reason" required:"true"`
	Effects []Effect `yaml:"effects"` // what happens if it is given anyway
}

// CriticalAction must be done within Within seconds of arrival, or before
// the critical action named by Before.
type CriticalAction struct {
	ID          string  `yaml:"id" required:"true"`
	Description string  `yaml:"description" required:"true"`
	Match       Match   `yaml:"match" required:"true"`
	Within      Seconds `yaml:"within"`
	Before      string  `yaml:"before"`
	Points      int     `yaml:"points" required:"true"` // its share of the score when met
	// States: an action for one part of the case (after ROSC) applies only once the patient is in
	// one of these states; only what is done in them counts, and Within runs from the first.
	States Names `yaml:"states"`
}

// CriticalError is an action that must not be done (in States, if given).
type CriticalError struct {
	ID          string `yaml:"id" required:"true"`
	Description string `yaml:"description" required:"true"`
	Match       Match  `yaml:"match" required:"true"`
	States      Names  `yaml:"states"`
	Penalty     int    `yaml:"penalty" required:"true"` // points taken off the score
}

// Rescue is an emergency treatment the case calls for in States. Given to a patient who cannot
// give a history, it is credited, not faulted for coming before an allergy history.
type Rescue struct {
	Description string `yaml:"description" required:"true"`
	Match       Match  `yaml:"match" required:"true"`
	States      Names  `yaml:"states" required:"true"`
}

// Scoring weighs the After Action Review's score. The critical actions' points and the three
// general items below add up to 100; the penalties are taken off for each occurrence.
type Scoring struct {
	Trajectory     int `yaml:"trajectory"`      // the last measured NEWS2 is below the first
	AllergiesFirst int `yaml:"allergies_first"` // allergies asked before any medication
	Reassessment   int `yaml:"reassessment"`    // observations repeated after a treatment
	Reflection     int `yaml:"reflection"`      // the reflective answers' key points named, in proportion
	HardStop       int `yaml:"hard_stop"`       // taken off for a drug given against a hard stop
	Warning        int `yaml:"warning"`         // taken off for each safety warning raised
	// Diagnosis, Disposition and Actions split the whole score in three parts that add up to
	// ScoreMax; all unset means DefaultWeights. The items above make up the actions' part.
	Diagnosis   int `yaml:"diagnosis"`
	Disposition int `yaml:"disposition"`
	Actions     int `yaml:"actions"`
}

// ScoreMax is what a perfect run scores.
const ScoreMax = 100

// State returns the named state, or nil.
func (s *Scenario) State(name string) *State { return s.States[name] }

// Tracks reports whether the scenario sets v in its initial state, which is
// how it says a vital (EtCO2, glucose, wheeze, pain) matters for this case.
func (s *Scenario) Tracks(v Vital) bool {
	_, ok := s.States[s.InitialState].Vitals[v.String()]
	return ok
}

// DisclosuresAbout returns what the patient says about topic, in file order.
func (s *Scenario) DisclosuresAbout(topic string) []Disclosure { return About(s.Disclosures, topic) }

// DisclosuresAbout returns what the bystander says about topic, in file order.
func (b *Bystander) DisclosuresAbout(topic string) []Disclosure { return About(b.Disclosures, topic) }

// About returns the disclosures of list about topic, in order.
func About(list []Disclosure, topic string) []Disclosure {
	var out []Disclosure
	for _, d := range list {
		if d.Topic == topic {
			out = append(out, d)
		}
	}
	return out
}

// NumConditions is the number of transition conditions in the scenario.
func (s *Scenario) NumConditions() int { return s.conditions }

// Name is the state's id.
func (st *State) Name() string { return st.name }

// Target is the value v approaches in this state.
func (st *State) Target(v Vital) float64 { return st.target[v] }

// Alpha is the share of the gap to target that v closes per sim second.
func (st *State) Alpha(v Vital) float64 { return st.alpha[v] }

// CourseTarget is the value v approaches secs seconds into the state: the state's own target
// moved along its course, all the way there once the course has run.
func (st *State) CourseTarget(v Vital, secs float64) float64 {
	if st.toward == nil {
		return st.target[v]
	}
	k := min(1, secs/st.over)
	return st.target[v] + (st.toward.target[v]-st.target[v])*k
}

// Outgoing lists the indexes of transitions that can leave this state, in
// file order (the first that fires wins).
func (st *State) Outgoing() []int { return st.out }

// ConditionIndex numbers condition i of the transition across the scenario.
func (t *Transition) ConditionIndex(i int) int { return t.firstCondition + i }

// AllRequired reports whether every condition must hold.
func (t *Transition) AllRequired() bool { return t.Mode == "all" }

// VitalIndex is the parsed Vital of a threshold condition.
func (c *Condition) VitalIndex() Vital { return c.vital }

// Settings are where a case may happen.
const (
	Hospital    = "hospital"
	Prehospital = "prehospital"
)

// OneSided is the side of the case's one-sided chest problem: its own, or its arrest's cause's;
// "" when it has none.
func (s *Scenario) OneSided() string {
	if s.Side == "" && s.Arrest != nil {
		return s.Arrest.Side
	}
	return s.Side
}

// Where is the case's setting: hospital unless it says prehospital.
func (s *Scenario) Where() string {
	if s.Setting == "" {
		return Hospital
	}
	return s.Setting
}
