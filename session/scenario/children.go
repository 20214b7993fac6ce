package scenario

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
)

// ChildDoses are a route's doses for children whose age is in [FromYears, ToYears): usual and
// maximum single doses, often per kg, never more than Cap in one dose whatever the weight, and
// at most Total in all when given.
type ChildDoses struct {
	FromYears, ToYears float64
	Usual, Max, Total  DoseRange
	Cap                float64 // in the base unit; 0: none
}

// AdultYears is the age from which the adult doses apply.
const AdultYears = 18

//go:embed formulary_children.yaml
var childrenData []byte

// childrenFile is formulary_children.yaml: per drug, the bands of each route, and the source.
type childrenFile struct {
	Sources map[string]string        `yaml:"sources"` // added to formulary.yaml's
	Drugs   map[string]childDrugYAML `yaml:"drugs" required:"true"`
}

type childDrugYAML struct {
	Routes map[string][]childYAML `yaml:"routes" required:"true"`
	Source string                 `yaml:"source" required:"true"`
}

// childYAML is a band as the formulary writes it: ages "0.5-6" (from 6 months, under 6 years),
// doses as the adult's are written, "40 mg/kg" included.
type childYAML struct {
	Ages  string `yaml:"ages" required:"true"`
	Usual string `yaml:"usual" required:"true"`
	Max   string `yaml:"max" required:"true"`
	Total string `yaml:"total"`
	Cap   string `yaml:"cap"`
}

// forChild is the route's doses for the patient: the adult's for an adult; for a child, those of
// the band their age falls in, at their weight, capped. A child whose age no band covers gets
// the adult doses and a warning to check the BNF for Children.
func (e *DrugDoses) forChild(v *Verdict, r *RouteDoses, ctx DoseContext) *RouteDoses {
	child, ok := r.forPatient(ctx)
	if !ok {
		v.add(DoseWarn, RuleNoChildDose, "Caution — the formulary has no children's dose of %s %s; the figures are an adult's: check the BNF for Children.",
			e.Name, r.Route)
	}
	return child
}

// forPatient is the route's doses for the patient, and false for a child no band covers (who
// gets the adult's).
func (r *RouteDoses) forPatient(ctx DoseContext) (*RouteDoses, bool) {
	if !ctx.IsChild() {
		return r, true
	}
	for _, b := range r.Children {
		if ctx.AgeYears >= b.FromYears && ctx.AgeYears < b.ToYears {
			return b.route(r, ctx.Weight()), true
		}
	}
	return r, false
}

// RuleNoChildDose: warn, the formulary has no dose for a child of this age by this route.
const RuleNoChildDose = "no_child_dose"

// route is r with the band's doses at weight: the maximum (and total) become absolute, capped.
func (b ChildDoses) route(r *RouteDoses, weightKg float64) *RouteDoses {
	out := *r
	_, most := b.Max.At(weightKg, b.Cap)
	out.Usual, out.Max = b.Usual, DoseRange{Low: most, High: most}
	out.Total = DoseRange{}
	if b.Total.High > 0 {
		_, total := b.Total.At(weightKg, b.Cap)
		out.Total = DoseRange{Low: total, High: total}
	}
	return &out
}

// addChildren reads the children's doses and gives each band to its drug's route: the drug and
// the route must be in the formulary already.
func (f *formularyTable) addChildren(data []byte) error {
	var raw childrenFile
	c, ok := decode(data, &raw)
	if ok {
		for abbr, text := range raw.Sources {
			f.sources[abbr] = text
		}
		for name, d := range raw.Drugs {
			e := f.drugs[name]
			if e == nil {
				c.at("drugs."+name, "%q has no adult entry in formulary.yaml", name)
				continue
			}
			e.ChildSource = d.Source
			for route, bands := range d.Routes {
				p := "drugs." + name + ".routes." + route
				r := e.Route(route)
				if r == nil {
					c.at(p, "%s is not given %s in formulary.yaml", name, route)
					continue
				}
				r.Children = c.childDoses(bands, e.BaseUnit(), p)
			}
		}
	}
	if errs := c.sorted(); len(errs) > 0 {
		return errors.Join(errs...)
	}
	return nil
}

// childDoses reads and checks a route's age bands: in order, not overlapping, each usual dose
// within its maximum and the maximum under ten times it (at an APLS weight for the band), so a
// tenfold error still stops.
func (c *checker) childDoses(bands []childYAML, base Unit, p string) []ChildDoses {
	var out []ChildDoses
	for i, y := range bands {
		p := fmt.Sprintf("%s[%d]", p, i)
		var b ChildDoses
		from, to, ok := strings.Cut(y.Ages, "-")
		lo, errLo := parseNumber(from)
		hi, errHi := parseNumber(to)
		if !ok || errLo != nil || errHi != nil || lo < 0 || hi <= lo || hi > AdultYears {
			c.at(p+".ages", "ages %q must be FROM-TO in years, FROM below TO, up to %d", y.Ages, AdultYears)
			continue
		}
		b.FromYears, b.ToYears = lo, hi
		if n := len(out); n > 0 && lo < out[n-1].ToYears {
			c.at(p+".ages", "ages %q overlap the band before", y.Ages)
		}
		b.Usual, b.Max = c.doseRange(y.Usual, base, p+".usual"), c.doseRange(y.Max, base, p+".max")
		if y.Total != "" {
			b.Total = c.doseRange(y.Total, base, p+".total")
		}
		if y.Cap != "" {
			b.Cap = c.doseRange(y.Cap, base, p+".cap").High
		}
		w := aplsWeight(lo)
		_, most := b.Max.At(w, b.Cap)
		_, usual := b.Usual.At(w, 0)
		switch {
		case usual > most*(1+tolerance):
			c.at(p+".usual", "the usual dose is above the maximum at %g kg", w)
		case most >= 10*usual:
			c.at(p+".max", "the maximum is ten times the usual dose or more at %g kg, so a tenfold error would pass", w)
		}
		out = append(out, b)
	}
	return out
}

// aplsWeight is the APLS estimate of a child's weight by age, (age + 4) × 2 kg, and 3.5 kg for a
// newborn: what the formulary's bands are checked at.
func aplsWeight(years float64) float64 {
	if years < 1 {
		return 3.5 + years*6
	}
	return (years + 4) * 2
}
