package physio

import (
	"fmt"
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Finding is a safety verdict on a medication order, from the scenario's
// ground truth — whatever the trainee asked or the LLM said.
type Finding struct {
	Level   string `json:"level"` // hard_stop | warn
	Drug    string `json:"drug"`
	Rule    string `json:"rule"` // allergy, cross_reactivity, contraindication, pde5_inhibitor, hypotension
	Reason  string `json:"reason"`
	Suggest string `json:"suggest,omitempty"`

	effects []sc.Effect // the body's response if it is given anyway
	source  string      // effect source: sourceAllergy (adrenaline reverses it) or "reaction"
	plain   string      // the reason in the Pharmacist's words, after "STOP — " or "Caution — "
}

// Say is the finding as the Pharmacist tells the trainee, with no rule name: "STOP — penicillin
// allergy (hives and facial swelling): amoxicillin is a penicillin."
func (f Finding) Say() string {
	prefix := "Caution — "
	if f.Level == sc.HardStop {
		prefix = "STOP — "
	}
	text := f.plain
	if text == "" {
		text = f.Reason
	}
	if f.Suggest != "" {
		text += "; consider " + f.Suggest
	}
	return prefix + strings.TrimSuffix(text, ".") + "."
}

// Rules a Finding can come from.
const (
	RuleAllergy          = "allergy"
	RuleCrossReactivity  = "cross_reactivity"
	RuleContraindication = "contraindication"
	RulePDE5             = "pde5_inhibitor"
	RuleHypotension      = "hypotension"
)

// crossLevel is how seriously a true allergy to one member of a class
// counts against another member. Phenanthrene opioids cross-react less
// reliably, so they warn (and fentanyl is offered) rather than block.
var crossLevel = map[string]string{"phenanthrene_opioid": sc.Warn}

// pde5Window is how many hours after each PDE5 inhibitor a nitrate is unsafe.
var pde5Window = map[string]float64{"sildenafil": 24, "vardenafil": 24, "tadalafil": 48}

// CheckMedication checks drug against the patient's allergies (by drug class),
// the scenario's contraindications, and nitrates against PDE5 inhibitors and
// a systolic pressure under 90. elapsedSec is time since arrival, which ages
// the "last taken" of the patient's own medicines.
func CheckMedication(s *sc.Scenario, drug string, sbp, elapsedSec float64) []Finding {
	d, ok := sc.LookupDrug(drug)
	if !ok {
		return nil
	}
	var out []Finding
	for _, al := range s.Allergies {
		if f, ok := allergyFinding(al, d); ok {
			out = append(out, f)
		}
	}
	for _, ci := range s.Contraindications {
		if ci.Drug.Has(d.Name) || inClass(d.Name, ci.Class) {
			out = append(out, Finding{Level: ci.Level, Rule: RuleContraindication, Reason: ci.Reason,
				effects: ci.Effects, source: sourceReaction, plain: "not " + sc.DrugLabel(d.Name) + ": " + ci.Reason})
		}
	}
	if d.Is("nitrate") {
		out = append(out, nitrateFindings(s, sbp, elapsedSec)...)
	}
	for i := range out {
		out[i].Drug = sc.DrugLabel(d.Name) // as every line that shows the finding names the drug
	}
	return out
}

func allergyFinding(al sc.Allergy, d sc.Drug) (Finding, bool) {
	agent, agentIsDrug := sc.LookupDrug(al.Agent)
	name := sc.DrugLabel(d.Name)
	f := Finding{Level: sc.HardStop, source: sourceAllergy, effects: al.Effects}
	allergy := fmt.Sprintf("%s allergy (%s)", al.Agent, al.Reaction)
	if !al.TrueAllergy() {
		allergy = fmt.Sprintf("%s intolerance (%s), not a true allergy", al.Agent, al.Reaction)
	}
	switch {
	case agentIsDrug && agent.Name == d.Name:
		f.Rule = RuleAllergy
		f.Reason = fmt.Sprintf("documented allergy to %s (%s)", al.Agent, al.Reaction)
		f.plain = allergy + ": do not give " + name
	case al.DrugClass != "" && d.Is(al.DrugClass):
		f.Rule = RuleCrossReactivity
		f.Reason = fmt.Sprintf("%s is a %s, like %s, to which the patient is allergic (%s)",
			name, className(al.DrugClass), al.Agent, al.Reaction)
		f.plain = fmt.Sprintf("%s: %s is %s", allergy, name, withArticle(className(al.DrugClass)))
		if lvl, ok := crossLevel[al.DrugClass]; ok {
			f.Level = lvl
			f.plain += " like " + al.Agent + ", and may cross-react"
		}
		if al.DrugClass == "phenanthrene_opioid" {
			f.Suggest = "fentanyl, a phenylpiperidine opioid that does not share the phenanthrene structure"
		}
	case al.DrugClass == "penicillin" && d.Is("cephalosporin"):
		f.Rule, f.Level = RuleCrossReactivity, sc.Warn
		f.Reason = fmt.Sprintf("%s is a cephalosporin; cross-reactivity with penicillins is low (about 1–2 %%) "+
			"but the patient reacted to %s (%s)", name, al.Agent, al.Reaction)
		f.plain = fmt.Sprintf("%s: %s is a cephalosporin; cross-reactivity with penicillins is low (about 1–2 %%), "+
			"so watch for a reaction", allergy, name)
	default:
		return Finding{}, false
	}
	if !al.TrueAllergy() {
		f.Level = sc.Warn
		f.Reason += "; recorded as an intolerance, not a true allergy"
	}
	if f.Level == sc.HardStop && len(f.effects) == 0 {
		f.effects = scaled(allergicReaction, severityScale[al.Severity])
	}
	return f, true
}

func nitrateFindings(s *sc.Scenario, sbp, elapsedSec float64) []Finding {
	var out []Finding
	for _, m := range s.Medications {
		md, ok := sc.LookupDrug(m.Name)
		if !ok || !md.Is("pde5_inhibitor") {
			continue
		}
		window := pde5Window[md.Name]
		if window == 0 {
			window = 24
		}
		switch {
		case m.LastTakenHours == nil:
			out = append(out, Finding{Level: sc.Warn, Rule: RulePDE5, source: sourceReaction,
				Reason: fmt.Sprintf("the patient takes %s; ask when the last dose was — nitrates are unsafe within %g h of it", md.Name, window)})
		case *m.LastTakenHours+elapsedSec/3600 <= window:
			out = append(out, Finding{Level: sc.HardStop, Rule: RulePDE5, source: sourceReaction, effects: nitrateCrash,
				Reason: fmt.Sprintf("%s taken %.0f h ago: with a nitrate it can cause profound, refractory hypotension (avoid for %g h)",
					md.Name, *m.LastTakenHours+elapsedSec/3600, window)})
		}
	}
	if sbp < 90 {
		out = append(out, Finding{Level: sc.HardStop, Rule: RuleHypotension, source: sourceReaction, effects: nitrateCrash,
			Reason: fmt.Sprintf("systolic BP %.0f mmHg is under 90; a nitrate would drop it further", sbp)})
	}
	return out
}

// withArticle puts "a" or "an" before a class name: "a penicillin", "an NSAID".
func withArticle(name string) string {
	if name != "" && (strings.ContainsRune("aeiou", rune(name[0])) || strings.HasPrefix(name, "NSAID")) {
		return "an " + name
	}
	return "a " + name
}

func className(c string) string {
	if c == "nsaid" {
		return "NSAID"
	}
	return strings.ReplaceAll(c, "_", " ")
}

func capAt(x float64) *float64 { return &x }

// allergicReaction is what a severe allergy does when its drug is given,
// unless the scenario describes the reaction itself.
var allergicReaction = []sc.Effect{
	{Vital: "hr", Delta: 25, Onset: 60, Duration: 1800, Cap: capAt(150)},
	{Vital: "sbp", Delta: -35, Onset: 60, Duration: 1800, Cap: capAt(70)},
	{Vital: "dbp", Delta: -20, Onset: 60, Duration: 1800, Cap: capAt(40)},
	{Vital: "spo2", Delta: -8, Onset: 90, Duration: 1800, Cap: capAt(82)},
	{Vital: "rr", Delta: 8, Onset: 60, Duration: 1800, Cap: capAt(36)},
	{Vital: "wheeze", Delta: 2, Onset: 90, Duration: 1800, Cap: capAt(3)},
}

var severityScale = map[string]float64{"severe": 1, "moderate": 0.6, "mild": 0.3}

// nitrateCrash is the hypotension of a nitrate given with a PDE5 inhibitor
// on board or to a hypotensive patient.
var nitrateCrash = []sc.Effect{
	{Vital: "sbp", Delta: -45, Onset: 60, Duration: 1800, Cap: capAt(65)},
	{Vital: "dbp", Delta: -25, Onset: 60, Duration: 1800, Cap: capAt(35)},
	{Vital: "hr", Delta: 20, Onset: 60, Duration: 1800, Cap: capAt(140)},
	{Vital: "gcs", Delta: -2, Onset: 120, Duration: 1800, Cap: capAt(12)},
}

func scaled(effects []sc.Effect, k float64) []sc.Effect {
	out := make([]sc.Effect, len(effects))
	for i, e := range effects {
		e.Delta *= k
		out[i] = e
	}
	return out
}
