package scenario

import (
	"slices"
	"strings"
)

// Findings is what a bedside examination finds, by region. A scenario's Findings are the
// baseline every state inherits; a state's Findings override them region by region.
//
// Regions: airway, breathing (inspection of the chest and work of breathing), percussion,
// auscultation (breath sounds), heart (heart sounds), pulses, cap_refill, skin, abdomen,
// pupils, gcs (by component, e.g. "E3 V4 M6"), limbs (neurovascular status), and focused (the
// system the scenario names for its own case).
type Findings map[string]string

// DiagnosisKey is what the trainee's working diagnosis is matched against.
type DiagnosisKey struct {
	// Accepted names the diagnosis: the first is how the debrief writes it, the rest are
	// synonyms and abbreviations that match as well.
	Accepted []string `yaml:"accepted" required:"true"`
	// Differentials are diagnoses that are reasonable to hold but are not this case.
	Differentials []string `yaml:"differentials"`
}

// DispositionKey is where the patient should go at the end of the case.
type DispositionKey struct {
	Accepted []string `yaml:"accepted" required:"true"` // resus|icu|hdu|ward|cath-lab|theatre|home
	Reason   string   `yaml:"reason" required:"true"`
}

// ReflectiveQuestion is asked in the debrief after the case; its key points are what a good
// answer names.
type ReflectiveQuestion struct {
	Question  string   `yaml:"question" required:"true"`
	KeyPoints []string `yaml:"key_points" required:"true"`
}

// Regions are the examination findings a scenario writes, in the order a bedside examination
// goes (A to E), each with the words the chat gives it.
var Regions = []string{
	"airway", "breathing", "percussion", "auscultation", "heart", "pulses", "cap_refill", "skin",
	"abdomen", "pupils", "gcs", "limbs", "focused",
}

// RegionNames are how the chat names each region's finding.
var RegionNames = map[string]string{
	"airway": "airway", "breathing": "chest on inspection", "percussion": "chest on percussion",
	"auscultation": "breath sounds", "heart": "heart sounds", "pulses": "pulses",
	"cap_refill": "capillary refill", "skin": "skin", "abdomen": "abdomen", "pupils": "pupils",
	"gcs": "GCS", "limbs": "limbs (neurovascular)", "focused": "focused examination",
}

// Finding is what examining region finds in this state: the state's own finding, or the
// scenario's baseline. It is a phrase the voices join into their lines ("capillary refill: 3
// seconds; skin: pale"), so one written as a sentence loses its full stop.
func (st *State) Finding(region string) string { return strings.TrimSuffix(st.findings[region], ".") }

// resolveFindings gives every state the baseline findings it does not override; the pupils
// fall back to the state's pupils, which every state has.
func (s *Scenario) resolveFindings() {
	for _, st := range s.States {
		st.findings = withDefaults(st.Findings, s.Findings)
		if st.findings["pupils"] == "" {
			st.findings["pupils"] = st.Pupils
		}
	}
}

// writesPupils reports whether the author wrote the pupils of st: its own pupils, or the initial
// state's, which every state inherits. A case that writes none would be answered "normal" by
// default, which the author never said (and in a head injury is dangerous).
func (s *Scenario) writesPupils(st *State) bool {
	if strings.TrimSpace(st.Pupils) != "" {
		return true
	}
	initial := s.States[s.InitialState]
	return initial != nil && strings.TrimSpace(initial.Pupils) != ""
}

// checkFindings reports a region that is not one of Regions, and a state that finds nothing
// for a region: every examination must have an answer in every state.
func (c *checker) checkFindings(s *Scenario) {
	for region := range s.Findings {
		if !slices.Contains(Regions, region) {
			c.at("findings."+region, "unknown examination region %q (want one of %v)", region, Regions)
		}
	}
	for _, name := range s.StateNames() {
		st := s.States[name]
		if st == nil {
			continue
		}
		for region := range st.Findings {
			if !slices.Contains(Regions, region) {
				c.at("states."+name+".findings."+region, "unknown examination region %q (want one of %v)", region, Regions)
			}
		}
		var missing []string
		for _, region := range Regions {
			if strings.TrimSpace(st.Findings[region]) == "" && strings.TrimSpace(s.Findings[region]) == "" &&
				(region != "pupils" || !s.writesPupils(st)) {
				missing = append(missing, region)
			}
		}
		if len(missing) > 0 {
			c.at("states."+name, "state %q finds nothing on examining %s: give findings (scenario-wide or in the state)",
				name, strings.Join(missing, ", "))
		}
	}
}
