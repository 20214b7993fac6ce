package physio

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// OrderRecord is one medication order as the Pharmacist checked it before anything was given:
// the formulary's verdict on the dose, with the drug-class findings the trainee could know of,
// and whether the drug went in. Orders that were stopped or asked about are kept too: a stopped
// order is a near miss, and the debrief reports it.
type OrderRecord struct {
	T     float64 `json:"t"`
	Drug  string  `json:"drug"`
	Route string  `json:"route,omitempty"` // as checked: the formulary fills in a drug's only route
	Dose  sc.Dose `json:"dose,omitzero"`   // as written
	// Verdict is the most serious of the dose check and the findings the trainee knew of:
	// ok, low, warn, stop or ask. Rule names the dose check's reason for scripts and the debrief.
	Verdict  sc.VerdictKind `json:"verdict"`
	Rule     string         `json:"rule,omitempty"`
	Amount   float64        `json:"amount,omitempty"` // the dose in Unit, as the formulary converted it
	Unit     sc.Unit        `json:"unit,omitempty"`
	Fraction float64        `json:"fraction,omitempty"` // share of the usual effect, below 1 for a low dose
	Excess   float64        `json:"excess,omitempty"`   // times its maximum, for an overdose
	// Say is what the Pharmacist tells the trainee, in plain words; empty when there is nothing
	// to say about an order within the usual dose.
	Say      string `json:"say,omitempty"`
	Given    bool   `json:"given"`
	Override bool   `json:"override,omitempty"` // the trainee overrode a stop
	// Refused: the nurse could not give it by that route now (routes.go); Say is then the
	// nurse's word, not the Pharmacist's.
	Refused bool `json:"refused,omitempty"`
}

// Reason is what the Pharmacist said, without the prefixes and the hint on how to override.
func (o OrderRecord) Reason() string { return plain(o.Say) }

// Stopped reports whether the Pharmacist stopped the order and it was not given.
func (o OrderRecord) Stopped() bool { return o.Verdict == sc.DoseStop && !o.Given }

// doseStopped reports whether the dose check itself stopped the order, whatever else did.
func (o OrderRecord) doseStopped() bool {
	switch o.Rule {
	case sc.RuleRoute, sc.RuleSituation, sc.RuleOverMax, sc.RuleTenfold, sc.RuleCumulative:
		return true
	}
	return false
}

// OutOfRange reports whether the order was given at a dose outside the usual range.
func (o OrderRecord) OutOfRange() bool {
	return o.Given && (o.Rule == sc.RuleBelowUsual || o.Rule == sc.RuleAboveUsual || o.Excess > 0)
}

// Text is the order as the trainee wrote it: "adrenaline 50 mg IV".
func (o OrderRecord) Text() string {
	return strings.Join(strings.Fields(sc.DrugLabel(o.Drug)+" "+o.Dose.String()+" "+o.Route), " ")
}

// overrideHint is how a stop tells the trainee to give the drug anyway.
const overrideHint = `Not given. To give it anyway, repeat the order with the word "override".`

// Orders is the engine's log of medication orders, read-only.
func (e *Engine) Orders() []OrderRecord { return capped(e.s.Orders) }

// checkOrder is the Pharmacist's check of a medication order: the dose against the formulary
// for this patient (weight, cardiac arrest, what was given before), and the drug against the
// allergies and contraindications the trainee knows of. It returns the order as it will be
// given (the route the formulary implies, the dose in mg) and the findings: all of them when the
// drug is given, only the known ones when it is not.
func (e *Engine) checkOrder(a action.Action) (action.Action, OrderRecord, []Finding) {
	if _, known := sc.LookupDrug(a.Drug); !known {
		return a, e.unknownDrug(a), nil
	}
	v := sc.CheckDose(sc.Order{Drug: a.Drug, Route: a.Route, Dose: a.WrittenDose(), At: sc.Seconds(e.s.T)},
		e.doseContext(), e.givenOrders())
	if a.Route == "" {
		a.Route = v.Route
	}
	if v.Unit == sc.Milligrams && v.Amount > 0 {
		a.DoseMg = v.Amount
	}
	o := OrderRecord{T: float64(e.s.T), Drug: a.Drug, Route: a.Route, Dose: a.WrittenDose(), Verdict: v.Kind, Rule: v.Rule,
		Amount: v.Amount, Unit: v.Unit, Fraction: v.Fraction, Override: a.Override}
	if a.Route != "" && !(a.Route == "PO" && a.Override) { // a tablet can be tried; a missing line cannot
		if why := e.refusal(a.Drug, a.Route, a.Gas); why != "" {
			o.Verdict, o.Rule, o.Say, o.Refused = sc.DoseAsk, RuleRouteRefused, why, true
			return a, o, nil
		}
	}
	findings := e.CheckMedication(a.Drug)
	var known []Finding
	var lines []string
	classStop := false
	for _, f := range findings {
		if e.knows(f) {
			known = append(known, f)
			lines = append(lines, e.said(f))
			classStop = classStop || f.Level == sc.HardStop
		}
	}
	doseSays := v.Kind != sc.DoseOK && v.Rule != sc.RuleNoEntry
	switch {
	case classStop && !a.Override:
		o.Verdict = sc.DoseStop
		if v.Kind == sc.DoseStop {
			lines = append(lines, v.Say)
		}
		lines = append(lines, overrideHint)
	case v.Kind == sc.DoseAsk:
		lines = append(lines, sentence(v.Say), "Nothing was given.")
	case v.Kind == sc.DoseStop && !a.Override:
		lines = append(lines, v.Say, overrideHint)
	default:
		o.Given = true
		o.Excess = v.Excess
		if doseSays {
			lines = append(lines, v.Say)
		}
		if classStop || v.Kind == sc.DoseStop {
			o.Verdict = sc.DoseStop
			lines = append(lines, "Given on your override; it is recorded.")
		} else if len(known) > 0 && o.Verdict == sc.DoseOK {
			o.Verdict = sc.DoseWarn
		}
	}
	o.Say = strings.Join(lines, " ")
	if !o.Given {
		return a, o, known
	}
	return a, o, findings
}

func (e *Engine) doseContext() sc.DoseContext {
	d := e.sc.Demographics
	return sc.DoseContext{WeightKg: d.WeightKg, AgeYears: float64(d.Age), Arrest: e.inArrest()}
}

// givenOrders are the orders that went in, for cumulative doses and repeat intervals.
func (e *Engine) givenOrders() []sc.Order {
	var out []sc.Order
	for _, o := range e.s.Orders {
		if o.Given {
			out = append(out, sc.Order{Drug: o.Drug, Route: o.Route, Dose: o.Dose, At: sc.Seconds(o.T)})
		}
	}
	return out
}

// Topics the engine reasons about.
const (
	topicAllergies   = "allergies"
	topicMedications = "medications"
)

// knows reports whether the trainee could know of a finding: an allergy once the patient told
// it (or it is documented), a PDE5 inhibitor once their medicines were told, a low blood pressure
// once it was measured. A contraindication written into the scenario is the presenting condition
// itself (asthma, hypoglycaemia, an opioid overdose), which the trainee is treating.
func (e *Engine) knows(f Finding) bool {
	switch f.Rule {
	case RuleAllergy, RuleCrossReactivity:
		return e.Knows(topicAllergies)
	case RulePDE5:
		return e.Knows(topicMedications)
	case RuleHypotension:
		r, ok := e.Measured()
		return ok && r.SBP < 90
	}
	return true
}

// said is a known finding as the Pharmacist says it; a low blood pressure is the one measured,
// not the engine's true value.
func (e *Engine) said(f Finding) string {
	if r, ok := e.Measured(); ok && f.Rule == RuleHypotension {
		f.plain = fmt.Sprintf("the last systolic BP measured is %d mmHg, under 90; a nitrate would drop it further", r.SBP)
	}
	return f.Say()
}

// Knows reports whether the patient has told the trainee about topic, or the notes say it: a
// disclosure the scenario reveals always is documented.
func (e *Engine) Knows(topic string) bool {
	for _, t := range e.s.Told {
		if t == topic {
			return true
		}
	}
	for _, d := range e.sc.DisclosuresAbout(topic) {
		if d.Reveal == sc.RevealAlways {
			return true
		}
	}
	return false
}

// Tells is what the patient says about topic now: the current state's own words where it has
// them (an eased pain is no longer the pain they arrived with), else the scenario's.
func (e *Engine) Tells(topic string) []sc.Disclosure {
	if now := sc.About(e.Felt().Disclosures, topic); len(now) > 0 {
		return now
	}
	return e.sc.DisclosuresAbout(topic)
}

// hear notes a question answered, by the patient if they can give a history, else by a relative:
// what was told is known from now on.
func (e *Engine) hear(topic string) {
	if e.Knows(topic) || len(e.answersAbout(topic)) == 0 {
		return
	}
	e.s.Told = append(e.s.Told, topic)
}

// answersAbout is what the patient, or a relative when the patient cannot, tells about topic now.
func (e *Engine) answersAbout(topic string) []sc.Disclosure {
	if e.Speech().GivesHistory() {
		return e.Tells(topic)
	}
	if b := e.sc.Bystander; b != nil {
		return b.DisclosuresAbout(topic)
	}
	return nil
}

// orderError is the critical error of a drug given against a finding or a dose stop: the
// trainee overrode the Pharmacist, or never asked what would have stopped the order.
func (e *Engine) orderError(o OrderRecord, f *Finding, out []Event) []Event {
	if f == nil {
		return e.criticalError("dose_"+o.Rule+":"+o.Drug,
			fmt.Sprintf("overrode the Pharmacist's stop and gave %s: %s", o.Text(), plain(o.Say)), out)
	}
	why := "overrode the Pharmacist's stop and gave " + f.Drug
	if !e.knows(*f) {
		why = "gave " + f.Drug + " " + unknownBecause[f.Rule]
	}
	return e.criticalError(f.Rule+":"+o.Drug, why+": "+f.Reason, out)
}

// unknownBecause says what the trainee missed that would have made a finding known.
var unknownBecause = map[string]string{
	RuleAllergy:         "without knowing the patient's allergies",
	RuleCrossReactivity: "without knowing the patient's allergies",
	RulePDE5:            "without knowing the patient's medicines",
	RuleHypotension:     "without a current blood pressure on record",
}

// sentence ends text with a full stop unless it ends a sentence already ("… e.g. 0.5 mg IM").
func sentence(text string) string {
	if strings.HasSuffix(text, ".") || strings.HasSuffix(text, "?") || strings.HasSuffix(text, "!") {
		return text
	}
	return text + "."
}

// plain is a Pharmacist's message without its shouted prefixes and the override hint, for the
// record of an error.
func plain(say string) string {
	say = strings.ReplaceAll(strings.ReplaceAll(say, overrideHint, ""), "Given on your override; it is recorded.", "")
	return strings.TrimSpace(strings.ReplaceAll(say, "STOP — ", ""))
}
