package scenario

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Order is one medication order: the drug, the route as stated, the dose as
// written, and when it was ordered.
type Order struct {
	Drug  string // catalogue name
	Route string // "" when the order did not say
	Dose  Dose
	At    Seconds // sim time
}

// VerdictKind is the outcome of a dose check, least to most serious; an
// ask means the order cannot be dosed as written.
type VerdictKind string

const (
	DoseOK   VerdictKind = "ok"
	DoseLow  VerdictKind = "low"  // below the usual dose: the effect is partial
	DoseWarn VerdictKind = "warn" // above the usual dose, too soon, or the wrong strength
	DoseStop VerdictKind = "stop" // not given unless the trainee overrides, as for an allergy
	DoseAsk  VerdictKind = "ask"  // ambiguous: Say is the question to ask
)

var severity = map[VerdictKind]int{DoseOK: 0, DoseLow: 1, DoseWarn: 2, DoseStop: 3}

// Rules a verdict can come from.
const (
	RuleNoEntry         = "no_entry"         // ok: the drug has no formulary entry
	RuleNoRoute         = "no_route"         // ask
	RuleNoAmount        = "no_amount"        // ask
	RuleNoStrength      = "no_strength"      // ask: a volume or puffs with no strength
	RuleUnknownStrength = "unknown_strength" // ask: the drug does not come in that strength
	RuleUnit            = "unit"             // ask: mg for a drug dosed in units, and so on
	RuleMismatch        = "mismatch"         // ask: the amount and volume × strength disagree
	RuleRoute           = "route"            // stop: not given by that route
	RuleSituation       = "situation"        // stop: the route is kept for cardiac arrest
	RuleOverMax         = "over_max"         // stop: above the maximum single dose
	RuleTenfold         = "tenfold"          // stop: ten times the usual dose or more
	RuleCumulative      = "cumulative"       // stop: over the maximum in all
	RuleAboveUsual      = "above_usual"      // warn
	RuleInterval        = "interval"         // warn: repeated sooner than the guidance
	RuleRouteStrength   = "route_strength"   // warn: a strength meant for another route
	RuleBelowUsual      = "below_usual"      // low
)

// Verdict is the formulary's answer to one order.
type Verdict struct {
	Kind     VerdictKind `json:"kind"`
	Rule     string      `json:"rule,omitempty"` // of the most serious finding
	Drug     string      `json:"drug"`
	Route    string      `json:"route,omitempty"`    // as checked; implied when the drug has one way to give it
	Amount   float64     `json:"amount,omitempty"`   // the dose in Unit
	Unit     Unit        `json:"unit,omitempty"`     // the drug's base unit
	Strength string      `json:"strength,omitempty"` // the strength it was ordered in
	// Fraction is the share of the usual effect the dose should have: 1, or
	// less for a dose below the usual one.
	Fraction float64 `json:"fraction"`
	// Excess is how many times the maximum (single, or in all) the order reaches, when it is over
	// one; 0 otherwise. An overdose given anyway does harm in proportion.
	Excess float64 `json:"excess,omitempty"`
	// Say is what the Pharmacist says: every finding with its numbers, the
	// most serious first, or the question an ask needs answered.
	Say string `json:"say,omitempty"`
}

// CheckDose checks an order against the formulary: the route, the amount
// (converting volumes, strengths and puffs), the usual and maximum single
// dose for the patient's weight, the cumulative maximum over given (the
// orders of the shift already given, any drug), and the repeat interval.
func CheckDose(o Order, ctx DoseContext, given []Order) Verdict {
	e, ok := LookupDoses(o.Drug)
	if !ok {
		return Verdict{Kind: DoseOK, Rule: RuleNoEntry, Drug: o.Drug, Route: o.Route, Fraction: 1}
	}
	v := Verdict{Drug: e.Drug, Route: o.Route, Unit: e.BaseUnit(), Strength: o.Dose.Strength.Label, Fraction: 1}
	if v.Route == "" {
		v.Route = e.impliedRoute(o.Dose)
	}
	if v.Route == "" {
		return v.ask(RuleNoRoute, e.askRoute(o.Dose, ctx))
	}
	r := e.Route(v.Route)
	switch {
	case r == nil:
		return v.stop(RuleRoute, "STOP — %s is not given %s; give it %s.", e.Name, v.Route, orList(e.RouteNames()))
	case r.OnlyIn == SituationCardiacArrest && !ctx.Arrest:
		// the amount is still checked: an overdose by the wrong route is two errors, and both are said
		v.add(DoseStop, RuleSituation, "STOP — %s %s is for cardiac arrest only%s.", e.Name, v.Route, e.otherwise(ctx))
	case r.BolusOnlyIn == SituationCardiacArrest && !ctx.Arrest && !o.Dose.IsInfusion():
		v.add(DoseStop, RuleSituation, "STOP — a bolus of %s %s is for cardiac arrest only; with a pulse, run it in over 10–20 minutes (order it \"over 20 minutes\").",
			e.Name, v.Route)
	case r.ToEffect:
		v.Kind, v.Say = DoseOK, fmt.Sprintf("%s %s is taken as needed, to effect.", capital(e.Name), v.Route)
		return v
	}
	r = e.forChild(&v, r, ctx)
	amount, rule, question := e.amount(r, o.Dose, ctx)
	switch {
	case question != "" && v.Kind == DoseStop:
		return v // the route is wrong whatever the amount
	case question != "":
		return v.ask(rule, question)
	}
	v.Amount = amount
	if s := o.Dose.Strength; !s.IsZero() && len(r.Strengths) > 0 && !slices.ContainsFunc(r.Strengths, s.Same) {
		v.add(DoseWarn, RuleRouteStrength, "Caution — %s %s is not the strength for %s; use %s.",
			e.Name, e.strengthLabel(s), v.Route, andList(labels(r.Strengths)))
	}
	e.checkAmount(&v, r, ctx)
	e.checkCumulative(&v, r, o, ctx, given)
	e.checkInterval(&v, r, o, ctx, given)
	if v.Kind == "" {
		v.Kind = DoseOK
		v.Say = fmt.Sprintf("%s %s %s is within the usual dose.", capital(e.Name), e.show(v.Amount), v.Route)
	}
	return v
}

// checkAmount compares one dose with the usual and maximum single dose.
func (e *DrugDoses) checkAmount(v *Verdict, r *RouteDoses, ctx DoseContext) {
	_, most := r.Max.At(ctx.Weight(), 0)
	low, high := r.Usual.At(ctx.Weight(), most)
	dose := fmt.Sprintf("%s %s %s", e.Name, e.show(v.Amount), v.Route)
	usual := e.usualText(r, ctx)
	near, far := low, high // the usual dose, as rounded in practice
	if r.Usual.PerKg {
		near, far = low*(1-weightRounding), high*(1+weightRounding)
	}
	switch {
	case v.Amount > most*(1+tolerance):
		v.Excess = max(v.Excess, v.Amount/most)
		if times := v.Amount / high; times >= 2 {
			v.add(DoseStop, RuleOverMax, "STOP — %s is %s× the usual %s; the maximum single dose is %s.",
				dose, timesText(times), usual, e.show(most))
		} else {
			v.add(DoseStop, RuleOverMax, "STOP — %s is above the maximum single dose of %s (usual %s).",
				dose, e.show(most), usual)
		}
	case v.Amount >= 10*high*(1-tolerance):
		v.add(DoseStop, RuleTenfold, "STOP — %s is %s× the usual %s.", dose, timesText(v.Amount/high), usual)
	case v.Amount > far*(1+tolerance):
		v.add(DoseWarn, RuleAboveUsual, "Caution — %s is above the usual %s; the maximum single dose is %s.",
			dose, usual, e.show(most))
	case v.Amount < near*(1-tolerance):
		v.Fraction = v.Amount / low
		v.add(DoseLow, RuleBelowUsual, "Low dose — %s is below the usual %s; expect about %.0f%% of the usual effect.",
			dose, usual, 100*v.Fraction)
	}
}

// checkCumulative adds the dose to what was given of the drug, by any
// route, within the route's window (or the whole shift).
func (e *DrugDoses) checkCumulative(v *Verdict, r *RouteDoses, o Order, ctx DoseContext, given []Order) {
	if r.Total.High == 0 {
		return
	}
	_, limit := r.Total.At(ctx.Weight(), 0)
	sum, n := v.Amount, 1
	for _, g := range given {
		if amount, ok := e.given(g, ctx); ok && (r.Window == 0 || o.At-g.At < r.Window) {
			sum += amount
			n++
		}
	}
	if n == 1 || sum <= limit*(1+tolerance) {
		return // a single dose over the total is over the maximum single dose too
	}
	v.Excess = max(v.Excess, sum/limit)
	within, per := "this shift", "per shift"
	if r.Window > 0 {
		within, per = "within "+durationText(r.Window), "in "+durationText(r.Window)
	}
	v.add(DoseStop, RuleCumulative, "STOP — %s %s %s would be the %s dose, %s in all %s; the maximum is %s %s.",
		e.Name, e.show(v.Amount), v.Route, ordinal(n), e.show(sum), within, e.show(limit), per)
}

// checkInterval warns when the same route was used sooner than the guidance
// says to repeat.
func (e *DrugDoses) checkInterval(v *Verdict, r *RouteDoses, o Order, ctx DoseContext, given []Order) {
	if r.Repeat == 0 {
		return
	}
	last := Seconds(math.Inf(-1))
	for _, g := range given {
		if _, ok := e.given(g, ctx); ok && e.routeOf(g) == v.Route && g.At <= o.At {
			last = max(last, g.At)
		}
	}
	if since := o.At - last; since < r.Repeat {
		when := durationText(since) + " ago"
		if since < 60 {
			when = "moments ago" // in the same minute: seconds of sim time would read as a bug
		}
		v.add(DoseWarn, RuleInterval, "Caution — %s %s was last given %s; the guidance is to repeat after %s.",
			e.Name, v.Route, when, durationText(r.Repeat))
	}
}

// given is the amount of an earlier order of this drug, if it was one.
func (e *DrugDoses) given(g Order, ctx DoseContext) (float64, bool) {
	d, ok := LookupDrug(g.Drug)
	if !ok || d.Name != e.Drug {
		return 0, false
	}
	r := e.Route(e.routeOf(g))
	if r == nil || r.ToEffect {
		return 0, false
	}
	amount, _, question := e.amount(r, g.Dose, ctx)
	return amount, question == ""
}

func (e *DrugDoses) routeOf(o Order) string {
	if o.Route != "" {
		return o.Route
	}
	return e.impliedRoute(o.Dose)
}

// tolerance keeps rounding in conversions from tipping a dose over a limit.
const tolerance = 1e-6

// weightRounding is how far a dose worked out by weight may be rounded to a practical amount (a
// round number, part of an ampoule) and still be the usual dose: 100 micrograms is the usual
// 1.5 micrograms/kg at 70 kg, not a low dose. The maximum and the tenfold check are not widened.
const weightRounding = 0.1

// amount converts a dose to the drug's base unit, or says what to ask.
func (e *DrugDoses) amount(r *RouteDoses, d Dose, ctx DoseContext) (float64, string, string) {
	base, name := e.BaseUnit(), e.Name
	if d.Unit == Millilitres && base != Millilitres && d.PerKg { // "2 mL/kg of 10%": a volume by weight
		d = Dose{VolumeML: d.Amount * ctx.Weight(), Strength: d.Strength, Infusion: d.Infusion}
	}
	s := d.Strength
	if d.Unit == Puffs && s.IsZero() {
		s = onlyPuffStrength(e.strengthsFor(r))
	}
	if !s.IsZero() {
		switch {
		case s.Unit != base:
			return 0, RuleUnit, fmt.Sprintf("%s is dosed in %s, not %s — how much, in %s?", capital(name), e.Unit, s.Unit, e.Unit)
		case len(e.Strengths) > 0 && !slices.ContainsFunc(e.Strengths, s.Same):
			return 0, RuleUnknownStrength, fmt.Sprintf("%s does not come as %s; it comes as %s. Which did you mean?",
				capital(name), s.Label, andList(labels(e.Strengths)))
		}
	}
	switch {
	case d.Amount > 0 && d.Unit == Puffs:
		if s.IsZero() || !s.Puff {
			return 0, RuleNoStrength, fmt.Sprintf("How much %s is in each puff? Give the dose in %s.", name, e.Unit)
		}
		return d.Amount * s.Amount, "", ""
	case d.Amount > 0 && d.Unit != base:
		return 0, RuleUnit, fmt.Sprintf("%s is dosed in %s, not %s — how much, in %s?", capital(name), e.Unit, d.Unit, e.Unit)
	case d.Amount > 0:
		amount := d.Amount
		if d.PerKg {
			amount *= ctx.Weight()
		}
		if fromVolume := d.VolumeML * s.Amount; fromVolume > 0 && math.Abs(fromVolume-amount) > 0.01*amount {
			return 0, RuleMismatch, fmt.Sprintf("%s of %s is %s mL, not %s mL — which did you mean: %s or %s?",
				e.show(amount), s.Label, num3(amount/s.Amount), num3(d.VolumeML), e.show(amount), e.show(fromVolume))
		}
		return amount, "", ""
	case d.VolumeML > 0 && base == Millilitres:
		return d.VolumeML, "", ""
	case d.VolumeML > 0 && s.IsZero():
		if len(e.Strengths) == 0 {
			return 0, RuleNoStrength, fmt.Sprintf("How much %s is in %s mL? Give the dose in %s.", name, num3(d.VolumeML), e.Unit)
		}
		return 0, RuleNoStrength, fmt.Sprintf("Which strength of %s is %s mL? It comes as %s.",
			name, num3(d.VolumeML), andList(labels(e.Strengths)))
	case d.VolumeML > 0:
		return d.VolumeML * s.Amount, "", ""
	}
	return 0, RuleNoAmount, fmt.Sprintf("How much %s %s? e.g. %s", name, r.Route, e.usualText(r, ctx))
}

// strengthsFor lists the strengths a route uses: its own, or else the drug's.
func (e *DrugDoses) strengthsFor(r *RouteDoses) []Strength {
	if len(r.Strengths) > 0 {
		return r.Strengths
	}
	return e.Strengths
}

func onlyPuffStrength(list []Strength) Strength {
	var found []Strength
	for _, s := range list {
		if s.Puff {
			found = append(found, s)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return Strength{}
}

// impliedRoute is the route an order must mean when it names none: the
// drug's only route, or the only one given by puffs when the dose is puffs.
// It is never a guess between two.
func (e *DrugDoses) impliedRoute(d Dose) string {
	if len(e.Routes) == 1 {
		return e.Routes[0].Route
	}
	if d.Unit != Puffs && !d.Strength.Puff {
		return ""
	}
	var found []string
	for i := range e.Routes {
		if !onlyPuffStrength(e.strengthsFor(&e.Routes[i])).IsZero() {
			found = append(found, e.Routes[i].Route)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return ""
}

// askRoute is the question for an order with no route, and no amount either
// when the dose is empty: "How much adrenaline, and by which route? e.g. 0.5 mg IM".
func (e *DrugDoses) askRoute(d Dose, ctx DoseContext) string {
	r := e.preferred()
	example := e.usualText(r, ctx) + " " + r.Route
	if r.ToEffect {
		example = r.Route
	}
	if d.IsZero() {
		return fmt.Sprintf("How much %s, and by which route? e.g. %s", e.Name, example)
	}
	return fmt.Sprintf("By which route should %s %s go — %s? e.g. %s", e.Name, d, orList(e.RouteNames()), example)
}

// preferred is the first route not kept for a special situation.
func (e *DrugDoses) preferred() *RouteDoses {
	for i := range e.Routes {
		if e.Routes[i].OnlyIn == "" {
			return &e.Routes[i]
		}
	}
	return &e.Routes[0]
}

// otherwise suggests the usual route when a route is kept for arrest.
func (e *DrugDoses) otherwise(ctx DoseContext) string {
	r := e.preferred()
	if r.OnlyIn != "" {
		return ""
	}
	return fmt.Sprintf("; otherwise give it %s, usually %s", r.Route, e.usualText(r, ctx))
}

// usualText is the usual dose for this patient, with the per-kg dose it
// comes from: "0.5 mg", "15–20 g", "105 micrograms (1.5 micrograms/kg)".
func (e *DrugDoses) usualText(r *RouteDoses, ctx DoseContext) string {
	_, most := r.Max.At(ctx.Weight(), 0)
	low, high := r.Usual.At(ctx.Weight(), most)
	text := e.showRange(low, high)
	if r.Usual.PerKg {
		text += " (" + e.showRange(r.Usual.Low, r.Usual.High) + "/kg"
		if ctx.WeightKg == 0 {
			text += fmt.Sprintf(", taking %g kg as no weight is recorded", float64(ReferenceWeightKg))
		}
		text += ")"
	}
	return text
}

// show writes an amount in the base unit as the formulary writes the drug's
// doses; micrograms become mg from 1 mg up, and mg become g from 1 g up.
func (e *DrugDoses) show(v float64) string {
	scale, unit := e.unitFor(v)
	return num3(v*scale) + " " + unit
}

// showRange writes both ends in the unit of the high end: "500–1000 mg".
func (e *DrugDoses) showRange(low, high float64) string {
	if low == high {
		return e.show(high)
	}
	scale, unit := e.unitFor(high)
	if low*scale < 1 && unit != e.Unit {
		scale, unit = displayUnits[e.Unit].scale, e.Unit
	}
	return num3(low*scale) + "–" + num3(high*scale) + " " + unit
}

// unitFor is the unit to show v in, and the factor from the base unit.
func (e *DrugDoses) unitFor(v float64) (float64, string) {
	switch {
	case e.Unit == "micrograms" && v >= 1:
		return 1, "mg"
	case e.Unit == "mg" && v >= 1000:
		return 0.001, "g"
	case e.Unit == "g" && v < 1000: // a child's dose, or a dose per kg
		return 1, "mg"
	}
	return displayUnits[e.Unit].scale, e.Unit
}

// strengthLabel names a strength as the formulary writes it, when it is one.
func (e *DrugDoses) strengthLabel(s Strength) string {
	if k := slices.IndexFunc(e.Strengths, s.Same); k >= 0 {
		return e.Strengths[k].Label
	}
	return s.Label
}

func (v Verdict) ask(rule, question string) Verdict {
	v.Kind, v.Rule, v.Say = DoseAsk, rule, question
	return v
}

func (v Verdict) stop(rule, format string, args ...any) Verdict {
	v.add(DoseStop, rule, format, args...)
	return v
}

// add records a finding; the most serious one sets the kind and rule and
// is said first.
func (v *Verdict) add(kind VerdictKind, rule, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if v.Kind == "" || severity[kind] > severity[v.Kind] {
		v.Kind, v.Rule = kind, rule
		v.Say = strings.TrimSpace(msg + " " + v.Say)
		return
	}
	v.Say += " " + msg
}

// num3 writes a number to three significant figures, with no exponent.
func num3(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func timesText(x float64) string {
	if x >= 10 {
		return strconv.FormatFloat(math.Round(x), 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}

func durationText(s Seconds) string {
	switch {
	case s >= 3600 && math.Mod(float64(s), 3600) == 0:
		return fmt.Sprintf("%g h", float64(s)/3600)
	case s >= 60:
		return fmt.Sprintf("%g min", math.Round(float64(s)/60))
	}
	return fmt.Sprintf("%g s", math.Round(float64(s)))
}

func ordinal(n int) string {
	words := []string{"", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
	switch {
	case n < len(words):
		return words[n]
	case n%100/10 != 1 && n%10 == 1:
		return strconv.Itoa(n) + "st"
	case n%100/10 != 1 && n%10 == 2:
		return strconv.Itoa(n) + "nd"
	case n%100/10 != 1 && n%10 == 3:
		return strconv.Itoa(n) + "rd"
	}
	return strconv.Itoa(n) + "th"
}

func labels(list []Strength) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Label
	}
	return out
}

func orList(items []string) string  { return joinList(items, "or") }
func andList(items []string) string { return joinList(items, "and") }

func joinList(items []string, word string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + word + " " + items[len(items)-1]
}

func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
