package physio

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Before the Pharmacist checks a dose, the nurse checks the route against the patient as they
// are now: by mouth needs a patient alert enough to swallow who is not nil by mouth; IV and IO
// need access sited (a drug given while it goes in waits for it); a nebuliser needs a gas to
// drive it. A refused order gets the nurse's
// plain words and what could be done instead, and nothing is given.

// Vascular access takes time to site: a peripheral cannula about a minute, an intraosseous
// needle about half that.
const (
	cannulaSeconds = 60
	ioSeconds      = 30
)

// swallowGCS is the lowest GCS at which a patient is trusted to swallow a tablet: alert, or at
// most a little muddled.
const swallowGCS = 14

// RuleRouteRefused is the order's rule when the nurse refused its route.
const RuleRouteRefused = "route_refused"

// siteAccess starts vascular access; it is in after the time it takes, unless it already is.
func (e *Engine) siteAccess(a *action.Action) {
	if e.s.AccessAt >= 0 {
		return
	}
	took := int64(cannulaSeconds)
	if a.Route == "IO" {
		took = ioSeconds
	}
	e.s.AccessAt = e.s.T + took
}

// refusal is the nurse's word on giving drug by route now, and "" when the patient can take it.
func (e *Engine) refusal(drug, route, gas string) string {
	why := e.routeBlocked(route, gas)
	if why == "" {
		return ""
	}
	name := sc.DrugLabel(drug)
	if alt := e.otherRoutes(drug, route, gas); len(alt) > 0 {
		return fmt.Sprintf("%s — %s %s instead? Nothing given.", why, name, strings.Join(alt, " or "))
	}
	return fmt.Sprintf("%s — nothing given of the %s.", why, name)
}

// routeBlocked is why route cannot be used now, in the nurse's words; "" when it can.
func (e *Engine) routeBlocked(route, gas string) string {
	he := pronoun(e.sc.Demographics.Sex)
	switch route {
	case "PO":
		if gcs := roundInt(e.raw()[sc.GCS]); gcs < swallowGCS {
			return fmt.Sprintf("%s can't swallow safely (GCS %d), so not by mouth", capital(he), gcs)
		}
		if e.sc.NilByMouth != "" {
			return fmt.Sprintf("%s is nil by mouth (%s)", capital(he), e.sc.NilByMouth)
		}
	case "IV", "IO":
		// Access being sited is enough: the drug goes in once it is (course.go).
		if e.s.AccessAt < 0 {
			return "There's no IV access yet: site a cannula first (\"site a cannula\", or \"IO access\")"
		}
	case "NEB":
		switch {
		case gas == "" && e.sc.NEWS2.HypercapnicTarget:
			// BTS oxygen guideline (2017): in hypercapnia a nebuliser is driven by compressed air,
			// with oxygen by nasal cannula alongside; by oxygen for no more than 6 minutes.
			return capital(he) + " retains CO2, so the nebuliser is driven by air with his oxygen alongside: " +
				"say \"nebulised with air\" (or \"with oxygen\", for no more than 6 minutes)"
		case gas == "" && !e.s.OnOxygen:
			return "A nebuliser needs a gas to drive it: with oxygen or with air (\"nebulised with oxygen\")"
		}
	}
	return ""
}

// otherRoutes are the drug's other formulary routes the patient could take, in the nurse's
// words: those open now, and IV or IO once a cannula is in.
func (e *Engine) otherRoutes(drug, route, gas string) []string {
	d, ok := sc.LookupDoses(drug)
	if !ok {
		return nil
	}
	var open, later []string
	for _, r := range d.Routes {
		said := cmp.Or(spokenRoutes[r.Route], r.Route)
		if r.Route == route || r.OnlyIn != "" && !e.inArrest() || slices.Contains(open, said) {
			continue
		}
		switch {
		case e.routeBlocked(r.Route, gas) == "":
			open = append(open, said)
		case r.Route == "IV" && e.s.AccessAt < 0 && route != "IO":
			later = append(later, "IV once a cannula is in")
		}
	}
	return append(open, later...)
}

// spokenRoutes are the routes as a nurse says them.
var spokenRoutes = map[string]string{
	"PO": "by mouth", "BUCCAL": "buccal", "SL": "under the tongue", "IN": "intranasal", "NEB": "nebulised",
	"INH": "inhaled", "PR": "rectal", "SC": "subcutaneous",
}

func pronoun(sex string) string {
	switch sex {
	case "F":
		return "she"
	case "M":
		return "he"
	}
	return "the patient"
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// fluidsRefused is the nurse's word on fluids ordered with no access sited.
func (e *Engine) fluidsRefused(a action.Action) OrderRecord {
	return OrderRecord{T: float64(e.s.T), Drug: "fluids", Route: "IV", Dose: sc.Dose{VolumeML: a.VolumeML},
		Verdict: sc.DoseAsk, Rule: RuleRouteRefused, Refused: true,
		Say: "There's no IV access yet: site a cannula first (\"site a cannula\", or \"IO access\") — no fluids given."}
}
