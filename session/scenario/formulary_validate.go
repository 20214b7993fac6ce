package scenario

import (
	"fmt"
	"slices"
)

// checkDoses checks a scenario against the formulary: a plausible weight,
// drug matches that name a route the drug is given by and dose bounds
// within its maximum, and the doses written in the patient's medicines and
// in critical actions.
func (c *checker) checkDoses(s *Scenario) {
	if w := s.Demographics.WeightKg; w != 0 && (w < 0.5 || w > 350) {
		c.at("demographics.weight_kg", "weight_kg %g is outside 0.5–350", w)
	}
	ctx := DoseContext{WeightKg: s.Demographics.WeightKg, AgeYears: float64(s.Demographics.Age)}
	for i, iv := range s.Interventions {
		c.checkMatchDoses(iv.Match, ctx, fmt.Sprintf("interventions[%d].match", i))
	}
	for i, t := range s.Transitions {
		for j, cond := range t.When {
			p := fmt.Sprintf("transitions[%d].when[%d]", i, j)
			if cond.Action != nil {
				c.checkMatchDoses(*cond.Action, ctx, p+".action")
			}
			if cond.Done != nil {
				c.checkMatchDoses(*cond.Done, ctx, p+".done")
			}
		}
	}
	for i, a := range s.CriticalActions {
		p := fmt.Sprintf("critical_actions[%d]", i)
		c.checkMatchDoses(a.Match, ctx, p+".match")
		if len(a.Match.Drug) == 1 {
			c.checkDoseText(a.Match.Drug[0], a.Match.Route, a.Description, ctx, p+".description")
		}
	}
	for i, m := range s.Medications {
		if d, ok := LookupDrug(m.Name); ok {
			c.checkDoseText(d.Name, nil, m.Dose, ctx, fmt.Sprintf("medications[%d].dose", i))
		}
	}
}

// checkMatchDoses: a match's routes must be routes the drug is given by,
// and its dose bounds must not pass the maximum single dose. Critical
// errors are not checked, because they may describe a wrong route or an
// overdose on purpose.
func (c *checker) checkMatchDoses(m Match, ctx DoseContext, p string) {
	for _, name := range m.Drug {
		e, ok := LookupDoses(name)
		if !ok {
			continue // an unknown drug is reported by checkDrugs
		}
		for _, r := range m.Route {
			if slices.Contains(Routes, r) && e.Route(r) == nil { // an unknown route is reported by checkMatch
				c.at(p+".route", "%s is not given %s (the formulary's routes: %s)", e.Drug, r, orList(e.RouteNames()))
			}
		}
		if m.MinDoseMg == 0 && m.MaxDoseMg == 0 {
			continue
		}
		if e.BaseUnit() != Milligrams {
			c.at(p, "%s is dosed in %s, so min_dose_mg and max_dose_mg do not apply", e.Drug, e.BaseUnit())
			continue
		}
		most, route := e.largestMax(m.Route, ctx)
		if route == "" {
			continue // no route of the match is known; reported above
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"min_dose_mg", m.MinDoseMg}, {"max_dose_mg", m.MaxDoseMg}} {
			if f.v > most*(1+tolerance) {
				c.at(p+"."+f.name, "%s %g is above the maximum single dose of %s (%s %s)", f.name, f.v, e.Drug, e.show(most), route)
			}
		}
	}
}

// checkDoseText checks a dose written in words ("Aspirin 300 mg chewed")
// against the drug's maximum single dose by any of routes (any route when
// none is given). Text with no dose, or one that cannot be converted, is
// left alone: it is prose, not an order.
func (c *checker) checkDoseText(drug string, routes Names, text string, ctx DoseContext, p string) {
	d, ok := ParseDose(text)
	e, known := LookupDoses(drug)
	if !ok || !known {
		return
	}
	resolved := false
	for i := range e.Routes {
		r, _ := e.Routes[i].forPatient(ctx)
		if r.ToEffect || (len(routes) > 0 && !slices.Contains(routes, r.Route)) {
			continue
		}
		amount, _, question := e.amount(r, d, ctx)
		if question != "" {
			continue
		}
		resolved = true
		if _, most := r.Max.At(ctx.Weight(), 0); amount <= most*(1+tolerance) {
			return
		}
	}
	if resolved {
		most, route := e.largestMax(routes, ctx)
		c.at(p, "%q is above the maximum single dose of %s (%s %s)", d, e.Drug, e.show(most), route)
	}
}

// largestMax is the highest maximum single dose among routes (all when none
// are given), and its route.
func (e *DrugDoses) largestMax(routes Names, ctx DoseContext) (float64, string) {
	most, route := 0.0, ""
	for i := range e.Routes {
		r, _ := e.Routes[i].forPatient(ctx)
		if r.ToEffect || (len(routes) > 0 && !slices.Contains(routes, r.Route)) {
			continue
		}
		if _, m := r.Max.At(ctx.Weight(), 0); m > most {
			most, route = m, r.Route
		}
	}
	return most, route
}
