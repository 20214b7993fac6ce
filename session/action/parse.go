package action

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Parse turns what the trainee typed into actions, in the order they
// were written. It is deterministic and conservative: it matches whole words
// and known phrases, reads doses, routes, devices and flows, and leaves out
// anything it cannot read unambiguously — a drug named without a dose, route
// or verb, a question about a drug, a negated or merely prepared drug.
//
// A medication keeps the dose phrase written with it; a sentence that says "override" marks its
// medications as overriding a stop.
func Parse(text string) []Action {
	var found []placed
	for _, sentence := range sentences(slashAsPer(text)) {
		var ctx context
		start := len(found)
		for _, cl := range sentence {
			ctx = cl.context(ctx)
			found = append(found, cl.actions(ctx)...)
		}
		shareRoute(found[start:])
		if overrides(sentence) {
			for i := start; i < len(found); i++ {
				found[i].a.Override = found[i].a.Kind == sc.KindMedication
			}
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].pos < found[j].pos })
	return dedupe(found)
}

// shareRoute gives the medications of one sentence that name no route the route the others
// share: "salbutamol 5 mg and ipratropium 500 micrograms nebulised" nebulises both. When the
// others name different routes, nothing is guessed.
func shareRoute(found []placed) {
	route, gas := "", ""
	for _, f := range found {
		if f.a.Kind != sc.KindMedication || f.a.Route == "" {
			continue
		}
		if route != "" && f.a.Route != route {
			return
		}
		route, gas = f.a.Route, cmp.Or(gas, f.a.Gas)
	}
	for i := range found {
		if a := &found[i].a; a.Kind == sc.KindMedication && a.Route == "" && route != "" {
			a.Route = route
		}
		if a := &found[i].a; a.Kind == sc.KindMedication && a.Route == "NEB" && a.Gas == "" {
			a.Gas = gas
		}
	}
}

// slashAsPer writes a slash with a letter (or %) beside it as "per": "mg/kg", "1 mg/mL",
// "5 mg/2.5 mL", "L/min". The tokenizer reads a slash as a space, and "mg/kg" must stay a dose
// per kilogram, not a dose and a stray "kg"; a slash between digits ("1/2") is a fraction and is
// left alone.
func slashAsPer(text string) string {
	if !strings.Contains(text, "/") {
		return text
	}
	rs := []rune(text)
	var b strings.Builder
	for i, r := range rs {
		if r == '/' && (wordBeside(rs, i, -1) || wordBeside(rs, i, 1)) {
			b.WriteString(" per ")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// wordBeside reports whether the first rune from i in direction step, past spaces, is a letter
// or a per cent sign.
func wordBeside(rs []rune, i, step int) bool {
	for j := i + step; j >= 0 && j < len(rs); j += step {
		if !unicode.IsSpace(rs[j]) {
			return unicode.IsLetter(rs[j]) || rs[j] == '%'
		}
	}
	return false
}

// overrides reports whether a sentence says, not negated, that a stopped order is to be given.
func overrides(sentence []clause) bool {
	for _, cl := range sentence {
		if i := cl.index(catOverride, 0); i >= 0 && !cl.negated(i) {
			return true
		}
	}
	return false
}

// placed is an action and the position of the word that produced it.
type placed struct {
	pos int
	a   Action
}

// context carries an administration verb across the clauses of a sentence
// ("give aspirin and GTN") and whether the sentence is a question.
type context struct {
	give    bool
	blocked bool
	exam    bool   // an examination verb is in force (exam.go)
	how     string // which: examine, listen, look, feel, percuss
}

func (c clause) context(prev context) context {
	next := prev
	if i := c.index(catExamine, 0); i >= 0 {
		next.exam, next.how = true, c[i].val
	} else if c.hasWord("check", "checking", "recheck", "rechecking", "reassess", "reassessing") {
		next.exam, next.how = true, examAny
	}
	own := c.has(catGive) || c.has(catRoute) || c.has(catBolus) || c.hasAmount()
	switch {
	case c.opener() == catAsk:
		next.give, next.blocked = own, true
	case c.opener() == catDirect:
		next.give, next.blocked = true, false
	case own:
		next.give, next.blocked = true, false
	}
	return next
}

func (c clause) actions(ctx context) []placed {
	var out []placed
	// A question, the patient's own medicines or an allergy are not orders.
	noOrders := ctx.blocked || c.has(catHistory) || c.hasTopic("allergies") || c.hasTopic("medications")
	ordered := false
	if !noOrders {
		meds := append(c.medications(ctx), c.unknownDrug(ctx)...)
		fluids := c.fluids(ctx)
		ordered = len(meds)+len(fluids) > 0
		out = append(append(out, meds...), fluids...)
		out = append(out, c.treatments()...)
	}
	out = append(out, c.oxygen(ctx, noOrders)...)
	out = append(out, c.targetSats()...)
	if !ctx.blocked {
		out = append(out, c.referrals()...)
	}
	out = append(out, c.assessments(ctx.blocked)...)
	out = append(out, c.examinations(ctx.how, ctx.exam)...)
	out = append(out, c.arrestActions(ctx.blocked)...)
	if !ordered {
		out = append(out, c.asks()...)
	}
	return out
}

func (c clause) medications(ctx context) []placed {
	var drugs []int
	for i, lx := range c {
		if lx.cat == catDrug {
			drugs = append(drugs, i)
		}
	}
	var out []placed
	glucoseCheck := c.isGlucoseCheck()
	for k, i := range drugs {
		if c[i].val == "glucose" && glucoseCheck {
			continue
		}
		if !ctx.give || c.negated(i) {
			continue
		}
		from, to := i, len(c)
		if k == 0 {
			from = 0
		}
		if k+1 < len(drugs) {
			to = drugs[k+1]
		}
		out = append(out, placed{c[i].pos, c.medication(c[i].val, from, to)})
	}
	return out
}

func (c clause) medication(drug string, from, to int) Action {
	a := Action{Kind: sc.KindMedication, Drug: drug}
	a.Dose, _ = sc.ParseDose(c.doseText(from, to))
	if a.Dose.Unit == sc.Milligrams && !a.Dose.PerKg {
		a.DoseMg = a.Dose.Amount
	}
	a.VolumeML = a.Dose.VolumeML
	a.Route = c.route(from, to)
	if a.Route == "" {
		a.Route = c.route(0, len(c))
	}
	if a.Route == "NEB" {
		a.Gas = c.drivingGas()
	}
	return a
}

// drivingGas is what the clause says drives its nebuliser: "with oxygen", "air-driven".
func (c clause) drivingGas() string {
	switch {
	case c.has(catOxygen):
		return "oxygen"
	case c.has(catGas):
		return "air"
	}
	return ""
}

func (c clause) fluids(ctx context) []placed {
	i := c.index(catFluid, 0)
	vol, hasVol := c.amount(0, len(c), volumeUnits)
	if i < 0 && (c.has(catDrug) || !hasVol || !c.has(catBolus)) {
		return nil
	}
	if i < 0 {
		i = c.index(catBolus, 0)
	}
	if c.negated(i) || !(ctx.give || hasVol) {
		return nil
	}
	if c.volumePerKg() { // "10 mL/kg": the engine works the volume out from the patient's weight
		return []placed{{c[i].pos, Action{Kind: sc.KindFluids, Dose: sc.Dose{Amount: vol, Unit: sc.Millilitres, PerKg: true}}}}
	}
	return []placed{{c[i].pos, Action{Kind: sc.KindFluids, VolumeML: vol}}}
}

// volumePerKg reports whether the clause's volume is per kilogram: "10 mL/kg", "20 ml per kg".
func (c clause) volumePerKg() bool {
	for i := 0; i+1 < len(c); i++ {
		if _, volume := volumeUnits[c[i].val]; c[i].cat != catUnit || !volume {
			continue
		}
		next := i + 1
		if c[next].word == "per" && next+1 < len(c) {
			next++
		}
		return c[next].word == "kg"
	}
	return false
}

// treatments are the actions named by their own words: airway manoeuvres,
// ventilation, positioning, splinting and IV access.
func (c clause) treatments() []placed {
	var out []placed
	for i, lx := range c {
		if c.negated(i) {
			continue
		}
		switch lx.cat {
		case catAirway:
			out = append(out, placed{lx.pos, Action{Kind: sc.KindAirway, Device: lx.val}})
		case catVentil:
			out = append(out, placed{lx.pos, Action{Kind: sc.KindVentilate, Device: "bvm"}})
		case catPos:
			out = append(out, placed{lx.pos, Action{Kind: sc.KindPosition, Position: lx.val}})
		case catSplint:
			out = append(out, placed{lx.pos, Action{Kind: sc.KindSplint, Side: c.side()}})
		case catIVAccess:
			out = append(out, placed{lx.pos, Action{Kind: sc.KindIVAccess, Route: lx.val}})
		case catPeriArrest:
			out = append(out, placed{lx.pos, Action{Kind: sc.ActionKind(lx.val)}})
		case catOwnKind: // "a tourniquet on the right thigh" is done on one side
			out = append(out, placed{lx.pos, Action{Kind: sc.ActionKind(lx.val), Side: c.side()}})
		case catRoute:
			if c.startsAccess(lx) {
				out = append(out, placed{lx.pos, Action{Kind: sc.KindIVAccess, Route: cmp.Or(lx.val, "IV")}})
			}
		}
	}
	return out
}

// startsAccess reads "start an IV" or "get IO in" as vascular access: an IV
// or IO route with a verb and no drug or fluid to go with it.
func (c clause) startsAccess(route lexeme) bool {
	if route.val != "IV" && route.val != "IO" {
		return false
	}
	if c.has(catDrug) || c.has(catFluid) || c.has(catOxygen) || c.hasAmount() {
		return false
	}
	return c.has(catGive) || c.hasWord("insert", "inserting", "site", "establish", "gain", "secure", "get", "need")
}

func (c clause) oxygen(ctx context, noOrders bool) []placed {
	if c.nebulises() && !c.has(catO2Device) {
		return nil // "salbutamol nebulised with oxygen": the oxygen drives the nebuliser
	}
	i := c.index(catOxygen, 0)
	dev := c.index(catO2Device, 0)
	if i < 0 {
		i = dev
	}
	if i < 0 {
		return nil
	}
	if c.has(catStop) {
		return []placed{{c[i].pos, Action{Kind: sc.KindStopOxygen}}}
	}
	if noOrders || c.negated(i) {
		return nil
	}
	a := Action{Kind: sc.KindOxygen}
	if dev >= 0 {
		a.Device = c[dev].val
	}
	a.FlowLPM = c.flow()
	if pct, ok := c.amount(0, len(c), percentUnits); ok && pct <= 100 {
		a.FiO2 = pct
	}
	if !(ctx.give || a.Device != "" || a.FlowLPM > 0 || a.FiO2 > 0 || c.hasWord("on")) {
		return nil
	}
	return []placed{{c[i].pos, a}}
}

// nebulises reports whether the clause orders a drug nebulised.
func (c clause) nebulises() bool {
	for _, lx := range c {
		if lx.cat == catRoute && lx.val == "NEB" {
			return c.has(catDrug)
		}
	}
	return false
}

// flow reads "15 L", "15 L/min", "15lpm", or a bare number straight after a
// device, oxygen or "at" ("NRB at 15").
func (c clause) flow() float64 {
	if f, ok := c.amount(0, len(c), flowUnits); ok {
		return f
	}
	for i := 1; i < len(c); i++ {
		prev := c[i-1]
		unitless := i+1 == len(c) || c[i+1].cat != catUnit
		if c[i].cat == catNum && unitless && c[i].num <= 60 &&
			(prev.cat == catO2Device || prev.cat == catOxygen || prev.word == "at") {
			return c[i].num
		}
	}
	return 0
}

// assessments: vitals, monitoring, ECG, glucose and examination. Asking for a
// value ("what's her BP?") is checking it, so questions do not block vitals.
func (c clause) assessments(question bool) []placed {
	var out []placed
	asking := c.has(catCheck) || c.has(catAsk) || c.has(catMonitor)
	glucoseCheck := c.isGlucoseCheck()
	for i, lx := range c {
		if c.negated(i) {
			continue
		}
		var kind sc.ActionKind
		switch {
		case lx.cat == catVitals, lx.cat == catVitalPart && asking:
			kind = sc.KindCheckVitals
		case lx.cat == catGlucoseCheck, lx.cat == catDrug && lx.val == "glucose" && glucoseCheck:
			kind = sc.KindGlucoseCheck
		case lx.cat == catECG: // "what's the rhythm?" asks to see it
			kind = sc.KindECG
		case lx.cat == catTest: // "what's the lactate?" asks for it
			out = append(out, placed{lx.pos, Action{Kind: sc.KindTest, Test: lx.val}})
			continue
		case question:
			continue
		case lx.cat == catMonitor && (lx.val == "" || c.monitorContext(i)):
			kind = sc.KindAttachMonitor
		default:
			continue
		}
		out = append(out, placed{lx.pos, Action{Kind: kind}})
	}
	return out
}

// isGlucoseCheck reads "check her glucose" as a measurement, not a drug.
func (c clause) isGlucoseCheck() bool {
	return (c.has(catCheck) || c.has(catAsk)) && !c.has(catGive) && !c.hasAmount()
}

// monitorContext tells "on the monitor" (a device) from "monitor her" (a verb).
func (c clause) monitorContext(i int) bool {
	for _, lx := range c[max(0, i-3):i] {
		if lx.cat == catGive || slices.Contains([]string{"on", "onto", "to", "the", "a", "attach", "attaching", "hook",
			"connect", "connecting", "get", "cardiac", "continuous"}, lx.word) {
			return true
		}
	}
	return false
}

func (c clause) asks() []placed {
	var out []placed
	strong := false
	for _, lx := range c {
		if lx.cat == catTopic {
			out = append(out, placed{lx.pos, Action{Kind: sc.KindAsk, Topic: lx.val}})
			strong = true
		}
	}
	if !strong {
		if i := c.index(catWeakOn, 0); i >= 0 {
			// "When did you last take the sildenafil?" asks about a medicine, not the illness.
			topic := "onset"
			if c.has(catDrug) || c.has(catHistory) {
				topic = "medications"
			}
			out = append(out, placed{c[i].pos, Action{Kind: sc.KindAsk, Topic: topic}})
		}
	}
	return out
}

// dedupe keeps the first of repeated actions: one vitals check per message,
// one ask per topic, one order per drug. One action says what another only starts: an airway
// opened "with a jaw thrust" is the jaw thrust, and "flat with legs raised" is the legs raised.
func dedupe(found []placed) []Action {
	seen := map[string]bool{}
	has := func(match func(Action) bool) bool {
		return slices.ContainsFunc(found, func(f placed) bool { return match(f.a) })
	}
	namedAirway := has(func(a Action) bool { return a.Kind == sc.KindAirway && a.Device != "" })
	legsRaised := has(func(a Action) bool { return a.Kind == sc.KindPosition && a.Position == "legs_raised" })
	var out []Action
	for _, f := range found {
		a := f.a
		if namedAirway && a.Kind == sc.KindAirway && a.Device == "" || legsRaised && a.Position == "supine" {
			continue
		}
		key := fmt.Sprint(a.Kind, "|", a.Drug, "|", a.Topic, "|", a.Test, "|", a.Device, "|", a.Position, "|", a.Region, "|", a.Cause)
		if a.Kind == sc.KindOxygen || a.Kind == sc.KindFluids {
			key = string(a.Kind)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, a)
		}
	}
	return out
}
