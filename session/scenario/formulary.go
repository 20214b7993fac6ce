package scenario

import (
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// DrugDoses is one drug's formulary entry: how it is given, in what doses
// and strengths, and where the facts come from.
type DrugDoses struct {
	Drug      string       // catalogue name
	Name      string       // the name the formulary uses (BNF, UK)
	Unit      string       // unit doses are shown in: mg, g, micrograms, units or mL
	Strengths []Strength   // as supplied
	Routes    []RouteDoses // the preferred route first
	Toxicity  string       // what too much does, for the engine and the Pharmacist
	Source    string
	// Partial says what the entry leaves out; empty for a complete entry.
	Partial string
	// ChildSource is where the children's doses come from, when the entry has any.
	ChildSource string
}

// RouteDoses are an adult's doses by one route, in the drug's base unit
// (mg, units or mL).
type RouteDoses struct {
	Route  string
	Usual  DoseRange // a usual single dose
	Max    DoseRange // the maximum single dose (High only)
	Total  DoseRange // the maximum given in all within Window (High only); zero: none
	Window Seconds   // 0: the whole shift
	Repeat Seconds   // the shortest interval between doses by this route; 0: none
	OnlyIn string    // a situation the route is kept for (Situations); "": any
	// BolusOnlyIn is a situation a bolus by this route is kept for; outside it the dose is run
	// in over time (amiodarone: a push in cardiac arrest, 10–20 minutes with a pulse).
	BolusOnlyIn string
	Strengths   []Strength
	// ToEffect: the patient takes it as needed (Entonox); no amount is ordered.
	ToEffect bool
	Note     string
	// Timing is when the drug begins to act by this route, when its effect is greatest, and how
	// long it acts, each from the dose.
	Timing Timing
	// Children are the doses by age band for patients under AdultYears (BNF for Children).
	Children []ChildDoses
}

// DoseRange is a dose or a range of doses, per kg of body weight when PerKg.
type DoseRange struct {
	Low, High float64
	PerKg     bool
}

// At gives the range for a patient's weight; doses per kg are never more
// than limit (the route's maximum single dose), when there is one.
func (r DoseRange) At(weightKg, limit float64) (low, high float64) {
	low, high = r.Low, r.High
	if r.PerKg {
		low, high = low*weightKg, high*weightKg
	}
	if limit > 0 {
		low, high = min(low, limit), min(high, limit)
	}
	return low, high
}

// Situations a route can be kept for.
const SituationCardiacArrest = "cardiac_arrest"

// ReferenceWeightKg stands in for a patient whose weight is not recorded.
const ReferenceWeightKg = 70

// BaseUnit is the unit a drug's doses are counted in.
func (e *DrugDoses) BaseUnit() Unit { return displayUnits[e.Unit].base }

// Route returns the entry's doses by route, or nil.
func (e *DrugDoses) Route(route string) *RouteDoses {
	for i := range e.Routes {
		if e.Routes[i].Route == route {
			return &e.Routes[i]
		}
	}
	return nil
}

// RouteNames lists the routes, the preferred first.
func (e *DrugDoses) RouteNames() []string {
	names := make([]string, len(e.Routes))
	for i, r := range e.Routes {
		names[i] = r.Route
	}
	return names
}

// displayUnits: the units a formulary may show doses in, the base unit each
// counts in, and the factor from the base.
var displayUnits = map[string]struct {
	base  Unit
	scale float64
}{
	"mg": {Milligrams, 1}, "g": {Milligrams, 0.001}, "micrograms": {Milligrams, 1000},
	"units": {Units, 1}, "mL": {Millilitres, 1},
}

//go:embed formulary.yaml
var formularyData []byte

// formularyTable is the parsed data: the entries by catalogue name, and the
// sources the entries cite by abbreviation.
type formularyTable struct {
	drugs   map[string]*DrugDoses
	sources map[string]string
}

// formulary is parsed on first use; the data is embedded, so an error in it
// is a bug that the tests catch, and a panic says so.
var formulary = sync.OnceValue(func() *formularyTable {
	f, err := parseFormulary(formularyData)
	if err != nil {
		panic("formulary.yaml: " + err.Error())
	}
	if err := f.addChildren(childrenData); err != nil {
		panic("formulary_children.yaml: " + err.Error())
	}
	return f
})

// LookupDoses returns the formulary entry for a drug, by any of its names.
func LookupDoses(name string) (*DrugDoses, bool) {
	d, ok := LookupDrug(name)
	if !ok {
		return nil, false
	}
	e, ok := formulary().drugs[d.Name]
	return e, ok
}

// DrugLabel is how ward names a drug to the trainee: the formulary's name (BNF, UK), so that
// every line says "adrenaline" and "glyceryl trinitrate" as the Pharmacist does; a drug the
// formulary lacks keeps the name it was given.
func DrugLabel(name string) string {
	if e, ok := LookupDoses(name); ok {
		return e.Name
	}
	return name
}

// Formulary returns every entry in catalogue order.
func Formulary() []*DrugDoses {
	var out []*DrugDoses
	for _, d := range drugs {
		if e, ok := formulary().drugs[d.Name]; ok {
			out = append(out, e)
		}
	}
	return out
}

// formularyFile, drugYAML and routeYAML are the data file's shape; doses
// are written as a person would ("0.5 mg", "15-20 g", "1.5 micrograms/kg")
// and read with ParseDose, so the file and the orders share one reading.
type formularyFile struct {
	Sources map[string]string   `yaml:"sources" required:"true"`
	Drugs   map[string]drugYAML `yaml:"drugs" required:"true"`
}

type drugYAML struct {
	Name      string      `yaml:"name"`
	Unit      string      `yaml:"unit" required:"true"`
	Strengths []string    `yaml:"strengths"`
	Routes    []routeYAML `yaml:"routes" required:"true"`
	Toxicity  string      `yaml:"toxicity"`
	Source    string      `yaml:"source" required:"true"`
	Partial   string      `yaml:"partial"`
}

type routeYAML struct {
	Route     string   `yaml:"route" required:"true"`
	Usual     string   `yaml:"usual"`
	Max       string   `yaml:"max"`
	Total     string   `yaml:"total"`
	Window    Seconds  `yaml:"window"`
	Repeat    Seconds  `yaml:"repeat"`
	OnlyIn    string   `yaml:"only_in"`
	BolusOnly string   `yaml:"bolus_only_in"`
	Strengths []string `yaml:"strengths"`
	ToEffect  bool     `yaml:"to_effect"`
	Note      string   `yaml:"note"`
	Onset     Seconds  `yaml:"onset" required:"true"`
	Peak      Seconds  `yaml:"peak" required:"true"`
	Duration  Seconds  `yaml:"duration" required:"true"`
}

// parseFormulary reads and checks formulary data: every drug is in the
// catalogue, every route is known, every dose reads in the drug's unit, and
// the usual dose does not exceed the maximum.
func parseFormulary(data []byte) (*formularyTable, error) {
	var raw formularyFile
	c, ok := decode(data, &raw)
	out := &formularyTable{drugs: map[string]*DrugDoses{}, sources: raw.Sources}
	if ok {
		for name, r := range raw.Drugs {
			if e := c.formularyEntry(name, r); e != nil {
				out.drugs[name] = e
			}
		}
	}
	if errs := c.sorted(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func (c *checker) formularyEntry(name string, r drugYAML) *DrugDoses {
	p := "drugs." + name
	d, known := LookupDrug(name)
	switch {
	case !known:
		c.at(p, "%q is not in the drug catalogue", name)
		return nil
	case d.Name != name:
		c.at(p, "write the drug as %q, not %q", d.Name, name)
		return nil
	}
	unit, ok := displayUnits[r.Unit]
	if !ok {
		c.at(p+".unit", "unit %q must be mg, g, micrograms, units or mL", r.Unit)
		return nil
	}
	e := &DrugDoses{Drug: name, Name: cmp.Or(r.Name, name), Unit: r.Unit, Toxicity: r.Toxicity,
		Source: r.Source, Partial: r.Partial}
	e.Strengths = c.strengths(r.Strengths, unit.base, p+".strengths")
	for i, ry := range r.Routes {
		p := fmt.Sprintf("%s.routes[%d]", p, i)
		if !slices.Contains(Routes, ry.Route) {
			c.at(p+".route", "unknown route %q (want one of %v)", ry.Route, Routes)
			continue
		}
		if e.Route(ry.Route) != nil {
			c.at(p+".route", "route %s is listed twice", ry.Route)
			continue
		}
		e.Routes = append(e.Routes, c.routeDoses(ry, unit.base, e.Strengths, p))
	}
	return e
}

func (c *checker) routeDoses(ry routeYAML, base Unit, drugStrengths []Strength, p string) RouteDoses {
	rd := RouteDoses{Route: ry.Route, Window: ry.Window, Repeat: ry.Repeat, OnlyIn: ry.OnlyIn, BolusOnlyIn: ry.BolusOnly,
		ToEffect: ry.ToEffect, Note: ry.Note, Timing: Timing{Onset: ry.Onset, Peak: ry.Peak, Duration: ry.Duration}}
	if !rd.Timing.ordered() {
		c.at(p, "onset, peak and duration must be positive and in that order (onset ≤ peak ≤ duration)")
	}
	for i, s := range c.strengths(ry.Strengths, base, p+".strengths") {
		// a route's strength is one of the drug's, and is named as the drug names it
		if k := slices.IndexFunc(drugStrengths, s.Same); k >= 0 {
			rd.Strengths = append(rd.Strengths, drugStrengths[k])
		} else {
			c.at(fmt.Sprintf("%s.strengths[%d]", p, i), "%q is not one of the drug's strengths", s.Label)
		}
	}
	if ry.OnlyIn != "" && ry.OnlyIn != SituationCardiacArrest {
		c.at(p+".only_in", "only_in %q must be %s", ry.OnlyIn, SituationCardiacArrest)
	}
	if ry.BolusOnly != "" && ry.BolusOnly != SituationCardiacArrest {
		c.at(p+".bolus_only_in", "bolus_only_in %q must be %s", ry.BolusOnly, SituationCardiacArrest)
	}
	if ry.Window > 0 && ry.Total == "" {
		c.at(p+".window", "a window needs a total")
	}
	if ry.ToEffect {
		return rd
	}
	rd.Usual = c.doseRange(ry.Usual, base, p+".usual")
	rd.Max = c.doseRange(ry.Max, base, p+".max")
	if ry.Total != "" {
		rd.Total = c.doseRange(ry.Total, base, p+".total")
	}
	for _, r := range []DoseRange{rd.Max, rd.Total} {
		if r.Low != r.High {
			c.at(p, "a maximum is one dose, not a range")
		}
	}
	_, usual := rd.Usual.At(ReferenceWeightKg, 0)
	_, most := rd.Max.At(ReferenceWeightKg, 0)
	_, total := rd.Total.At(ReferenceWeightKg, 0)
	switch {
	case most > 0 && usual > most && !rd.Usual.PerKg:
		c.at(p+".usual", "the usual dose is above the maximum")
	case most >= 10*usual:
		c.at(p+".max", "the maximum is ten times the usual dose or more, so a tenfold error would pass")
	case total > 0 && total < most:
		c.at(p+".total", "the total is below the maximum single dose")
	}
	return rd
}

// doseRange reads "0.5 mg", "15-20 g" or "1.5 micrograms/kg" into the base unit.
func (c *checker) doseRange(s string, base Unit, p string) DoseRange {
	if s == "" {
		c.at(p, "a dose is needed (or to_effect: true)")
		return DoseRange{}
	}
	lowText, highText, isRange := strings.Cut(strings.ReplaceAll(s, "–", "-"), "-")
	if !isRange {
		highText = lowText
	}
	high, ok := ParseDose(highText)
	amount, unitOK := high.in(base)
	if !ok || !unitOK || (high.VolumeML > 0 && base != Millilitres) || !high.Strength.IsZero() {
		c.at(p, "%q is not a dose in %s", s, base)
		return DoseRange{}
	}
	r := DoseRange{Low: amount, High: amount, PerKg: high.PerKg}
	if isRange {
		// the low end is written in the high end's unit: "400-1000 micrograms"
		low, errLow := parseNumber(lowText)
		written, errHigh := parseNumber(strings.TrimSpace(highText))
		if errLow != nil || errHigh != nil || low <= 0 || low >= written {
			c.at(p, "%q is not a range from low to high", s)
			return DoseRange{}
		}
		r.Low = amount * low / written
	}
	return r
}

// in gives an amount written in mass, units or mL in base, if it is one.
func (d Dose) in(base Unit) (float64, bool) {
	switch {
	case d.Amount > 0 && d.Unit == base:
		return d.Amount, true
	case base == Millilitres && d.Amount == 0 && d.VolumeML > 0:
		return d.VolumeML, true
	}
	return 0, false
}

// strengths reads strengths written as the data writes them, keeping the
// text as the label.
func (c *checker) strengths(texts []string, base Unit, p string) []Strength {
	var out []Strength
	for i, text := range texts {
		d, _ := ParseDose(text)
		s := d.Strength
		if s.IsZero() || d.Amount > 0 || d.VolumeML > 0 || s.Unit != base {
			c.at(fmt.Sprintf("%s[%d]", p, i), "%q is not a strength in %s per mL or per puff", text, base)
			continue
		}
		s.Label = text
		out = append(out, s)
	}
	return out
}

// parseNumber reads the number that starts s.
func parseNumber(s string) (float64, error) {
	toks := lex(s)
	if len(toks) == 0 || !toks[0].isNum {
		return 0, fmt.Errorf("%q does not start with a number", s)
	}
	return toks[0].num, nil
}

// Timing is a drug's course by one route, each time counted from the dose.
type Timing struct {
	Onset, Peak, Duration Seconds
}

func (t Timing) ordered() bool {
	return t.Onset > 0 && t.Onset <= t.Peak && t.Peak <= t.Duration
}

// TimingOf is drug's course by route, and false when the formulary has no such route.
func TimingOf(drug, route string) (Timing, bool) {
	d, ok := LookupDoses(drug)
	if !ok {
		return Timing{}, false
	}
	r := d.Route(route)
	if r == nil {
		return Timing{}, false
	}
	return r.Timing, true
}
