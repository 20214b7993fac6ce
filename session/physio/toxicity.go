package physio

import (
	"math"

	sc "github.com/ward-sim/ward/session/scenario"
)

// toxicity is what an overdose of each drug class does to the body, at about ten times the
// maximum dose; smaller overdoses do less (severity). The effects follow the formulary's
// toxicity notes (BNF monographs; RCUK for adrenaline): onsets and durations are the drug's
// usual ones, and caps keep each vital where such an overdose takes it.
var toxicity = map[string][]sc.Effect{
	// tachyarrhythmia and severe hypertension; pulmonary oedema
	"sympathomimetic": {
		{Vital: "hr", Delta: 60, Onset: 30, Duration: 1200, Cap: capAt(190)},
		{Vital: "sbp", Delta: 80, Onset: 30, Duration: 1200, Cap: capAt(240)},
		{Vital: "dbp", Delta: 40, Onset: 30, Duration: 1200, Cap: capAt(140)},
		{Vital: "spo2", Delta: -6, Onset: 180, Duration: 1800, Cap: capAt(86)},
	},
	"beta2_agonist": {
		{Vital: "hr", Delta: 40, Onset: 60, Duration: 2400, Cap: capAt(165)},
	},
	// respiratory depression, falling consciousness, hypotension; naloxone reverses it
	"opioid": {
		{Vital: "rr", Delta: -12, Onset: 120, Duration: 3600, Cap: capAt(5)},
		{Vital: "spo2", Delta: -18, Onset: 180, Duration: 3600, Cap: capAt(72)},
		{Vital: "gcs", Delta: -8, Onset: 120, Duration: 3600, Cap: capAt(6)},
		{Vital: "etco2", Delta: 25, Onset: 180, Duration: 3600, Cap: capAt(80)},
		{Vital: "sbp", Delta: -20, Onset: 180, Duration: 3600, Cap: capAt(85)},
	},
	// sedation and respiratory depression; flumazenil reverses it
	"benzodiazepine": {
		{Vital: "gcs", Delta: -7, Onset: 120, Duration: 3600, Cap: capAt(7)},
		{Vital: "rr", Delta: -6, Onset: 180, Duration: 3600, Cap: capAt(8)},
		{Vital: "spo2", Delta: -8, Onset: 240, Duration: 3600, Cap: capAt(86)},
		{Vital: "sbp", Delta: -20, Onset: 180, Duration: 3600, Cap: capAt(85)},
	},
	// hypoglycaemia, delayed and prolonged, then falling consciousness (seizures in the scenario's
	// own states); glucose or glucagon treats it
	"insulin": {
		{Vital: "glucose", Delta: -5, Onset: 600, Duration: 4 * 3600, Cap: capAt(1.4)},
		{Vital: "gcs", Delta: -9, Onset: 1200, Duration: 4 * 3600, Cap: capAt(5)},
		{Vital: "hr", Delta: 20, Onset: 900, Duration: 4 * 3600, Cap: capAt(130)},
	},
	"carbohydrate": {
		{Vital: "glucose", Delta: 12, Onset: 120, Duration: 3600, Cap: capAt(30)},
	},
	// hypotension and respiratory depression (magnesium)
	"electrolyte": {
		{Vital: "sbp", Delta: -35, Onset: 60, Duration: 1800, Cap: capAt(75)},
		{Vital: "rr", Delta: -8, Onset: 120, Duration: 1800, Cap: capAt(7)},
		{Vital: "gcs", Delta: -3, Onset: 300, Duration: 1800, Cap: capAt(11)},
	},
	// bradycardia and hypotension (amiodarone; adenosine's asystole is brief)
	"antiarrhythmic": {
		{Vital: "hr", Delta: -35, Onset: 60, Duration: 1800, Cap: capAt(40)},
		{Vital: "sbp", Delta: -30, Onset: 60, Duration: 1800, Cap: capAt(78)},
	},
	// bradycardia, hypotension and bronchospasm
	"beta_blocker": {
		{Vital: "hr", Delta: -40, Onset: 120, Duration: 3600, Cap: capAt(38)},
		{Vital: "sbp", Delta: -40, Onset: 120, Duration: 3600, Cap: capAt(72)},
		{Vital: "wheeze", Delta: 2, Onset: 180, Duration: 3600, Cap: capAt(3)},
		{Vital: "spo2", Delta: -5, Onset: 180, Duration: 3600, Cap: capAt(88)},
	},
	"nitrate": {
		{Vital: "sbp", Delta: -45, Onset: 60, Duration: 1800, Cap: capAt(68)},
		{Vital: "dbp", Delta: -25, Onset: 60, Duration: 1800, Cap: capAt(38)},
		{Vital: "hr", Delta: 20, Onset: 60, Duration: 1800, Cap: capAt(130)},
	},
	// acute opioid withdrawal
	"opioid_antagonist": {
		{Vital: "hr", Delta: 30, Onset: 60, Duration: 1800, Cap: capAt(140)},
		{Vital: "sbp", Delta: 35, Onset: 60, Duration: 1800, Cap: capAt(190)},
		{Vital: "rr", Delta: 8, Onset: 60, Duration: 1800, Cap: capAt(30)},
	},
	// sympathetic stimulation and dissociation
	"anaesthetic": {
		{Vital: "hr", Delta: 30, Onset: 60, Duration: 1800, Cap: capAt(145)},
		{Vital: "sbp", Delta: 40, Onset: 60, Duration: 1800, Cap: capAt(195)},
		{Vital: "gcs", Delta: -6, Onset: 60, Duration: 1800, Cap: capAt(8)},
	},
}

// reversedBy names, for a class whose overdose has an antidote, the classes that reverse it.
var reversedBy = map[string][]string{
	"opioid":         {"opioid_antagonist"},
	"benzodiazepine": {"benzodiazepine_antagonist"},
	"insulin":        {"carbohydrate", "glucagon"},
}

// toxicSource marks a class's overdose effects, so its antidote can cancel them.
func toxicSource(class string) string { return "toxicity:" + class }

// overdose starts the toxic effects of an order given over its maximum: excess times the
// maximum, or a route kept for cardiac arrest given outside one (a full dose where it harms).
func (e *Engine) overdose(o OrderRecord) {
	excess := o.Excess
	if o.Rule == sc.RuleSituation {
		excess = max(excess, 1)
	}
	d, ok := sc.LookupDrug(o.Drug)
	if !ok || excess <= 0 {
		return
	}
	for _, class := range d.Classes {
		if effects, ok := toxicity[class]; ok {
			e.addEffects(scaled(effects, severity(excess)), toxicSource(class))
		}
	}
}

// severity scales the toxic effects: half at the maximum dose, all of them at ten times it,
// half as much again at a hundred times, and no further.
func severity(excess float64) float64 {
	return min(1.5, 0.5+0.5*math.Log10(max(excess, 1)))
}

// reverse cancels the overdoses that drug is the antidote to.
func (e *Engine) reverse(drug string) {
	d, ok := sc.LookupDrug(drug)
	if !ok {
		return
	}
	for class, antidotes := range reversedBy {
		for _, a := range antidotes {
			if d.Is(a) {
				e.cancel(toxicSource(class))
			}
		}
	}
}
