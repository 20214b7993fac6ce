package scenario

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestEmbeddedFormularyParses(t *testing.T) {
	if _, err := parseFormulary(formularyData); err != nil {
		t.Fatal(err)
	}
}

func TestFormularyCoversTheCatalogue(t *testing.T) {
	for _, d := range Drugs() {
		e, ok := LookupDoses(d.Name)
		if !ok {
			t.Errorf("%s has no formulary entry", d.Name)
			continue
		}
		if e.Source == "" || len(e.Routes) == 0 {
			t.Errorf("%s: an entry needs a source and a route", d.Name)
		}
	}
	if got, want := len(Formulary()), len(Drugs()); got != want {
		t.Errorf("Formulary() has %d entries, the catalogue %d drugs", got, want)
	}
}

// orderable are the drugs a trainee could order in the built-in scenarios:
// those the scenarios name, and the standard treatments for their cases.
// Their entries must be complete.
var orderable = []string{
	"chlorphenamine", "hydrocortisone", "prednisolone", "morphine", "diamorphine", "codeine", "oxycodone",
	"nitroglycerin", "clopidogrel", "ticagrelor", "heparin", "enoxaparin", "ondansetron", "metoclopramide", "insulin", "ibuprofen",
	"amoxicillin", "co-amoxiclav", "piperacillin-tazobactam", "gentamicin", "ceftriaxone", "meropenem",
	"lorazepam", "midazolam", "diazepam", "tranexamic acid", "amiodarone", "adenosine", "atropine",
}

func TestOrderableDrugsHaveCompleteEntries(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Clone(orderable)
	for _, s := range lib.List() {
		for _, m := range scenarioMatches(s) {
			names = append(names, m.Drug...)
		}
	}
	for _, name := range names {
		e, _ := LookupDoses(name)
		if e.Partial != "" || e.Toxicity == "" {
			t.Errorf("%s: a drug a trainee could order needs a complete entry with its toxicity (partial: %q)", name, e.Partial)
		}
	}
}

func scenarioMatches(s *Scenario) []Match {
	var out []Match
	for _, iv := range s.Interventions {
		out = append(out, iv.Match)
	}
	for _, t := range s.Transitions {
		for _, c := range t.When {
			for _, m := range []*Match{c.Action, c.Done} {
				if m != nil {
					out = append(out, *m)
				}
			}
		}
	}
	for _, a := range s.CriticalActions {
		out = append(out, a.Match)
	}
	for _, e := range s.CriticalErrors {
		out = append(out, e.Match)
	}
	return out
}

func TestEveryCitedSourceIsListed(t *testing.T) {
	sources := formulary().sources
	for abbr := range sources {
		if !slices.ContainsFunc(Formulary(), func(e *DrugDoses) bool { return e.cites(abbr) }) {
			t.Errorf("source %s is listed but no entry cites it", abbr)
		}
	}
}

// TestFormularyFacts spot-checks the data against its sources.
func TestFormularyFacts(t *testing.T) {
	route := func(drug, route string) *RouteDoses {
		e, _ := LookupDoses(drug)
		r := e.Route(route)
		if r == nil {
			t.Fatalf("%s has no route %s", drug, route)
		}
		return r
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(a, b) }
	cases := []struct {
		name           string
		r              *RouteDoses
		low, high, max float64
		perKg          bool
		total          float64
		window, repeat Seconds
	}{
		{"adrenaline IM 0.5 mg, repeat after 5 min", route("adrenaline", "IM"), 0.5, 0.5, 0.5, false, 0, 0, 300},
		{"adrenaline IV 1 mg in arrest", route("epinephrine", "IV"), 1, 1, 1, false, 0, 0, 180},
		{"salbutamol nebulised 2.5–5 mg", route("salbutamol", "NEB"), 2.5, 5, 5, false, 0, 0, 0},
		{"magnesium 1.2–4 g (asthma to eclampsia), 8 g a day", route("magnesium sulfate", "IV"), 1200, 4000, 4000, false, 8000, 86400, 0},
		{"naloxone IV 400–800 micrograms, 10 mg in all", route("naloxone", "IV"), 0.4, 0.8, 4, false, 10, 0, 60},
		{"glucose IV 15–20 g", route("glucose", "IV"), 15000, 20000, 25000, false, 0, 0, 600},
		{"glucagon IM 1 mg", route("glucagon", "IM"), 1, 1, 1, false, 0, 0, 0},
		{"aspirin 300 mg, 4 g a day", route("aspirin", "PO"), 300, 300, 900, false, 4000, 86400, 14400},
		{"morphine IV 2.5–5 mg to 20 mg", route("morphine", "IV"), 2.5, 5, 10, false, 20, 0, 300},
		{"paracetamol PO 4 g in 24 h", route("paracetamol", "PO"), 500, 1000, 1000, false, 4000, 86400, 14400},
		{"fentanyl IN 1.5 micrograms/kg", route("fentanyl", "IN"), 0.0015, 0.0015, 0.2, false, 0, 0, 600},
		{"gentamicin 5–7 mg/kg", route("gentamicin", "IV"), 5, 7, 7, true, 7, 86400, 0},
		{"insulin SC in units", route("insulin", "SC"), 2, 10, 50, false, 0, 0, 0},
		{"methoxyflurane 3 mL, 6 mL a day", route("methoxyflurane", "INH"), 3, 3, 6, false, 6, 86400, 0},
	}
	for _, c := range cases {
		r := c.r
		if !near(r.Usual.Low, c.low) || !near(r.Usual.High, c.high) || !near(r.Max.High, c.max) ||
			r.Max.PerKg != c.perKg || !near(r.Total.High, c.total) || r.Window != c.window || r.Repeat != c.repeat {
			t.Errorf("%s: got usual %g–%g max %g (per kg %v) total %g window %g repeat %g", c.name,
				r.Usual.Low, r.Usual.High, r.Max.High, r.Max.PerKg, r.Total.High, r.Window, r.Repeat)
		}
	}
	if r := route("epinephrine", "IV"); r.OnlyIn != SituationCardiacArrest {
		t.Error("IV adrenaline must be kept for cardiac arrest")
	}
	if r := route("nitrous oxide", "INH"); !r.ToEffect {
		t.Error("Entonox is taken to effect")
	}
}

func TestFormularyStrengths(t *testing.T) {
	cases := map[string][]float64{ // mg (or units) per mL
		"adrenaline": {1, 0.1},
		"glucose":    {50, 100, 200, 500, 400},
		"insulin":    {100},
		"morphine":   {10, 1, 2, 20},
	}
	for drug, want := range cases {
		e, _ := LookupDoses(drug)
		var got []float64
		for _, s := range e.Strengths {
			got = append(got, s.Amount)
		}
		if !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }) {
			t.Errorf("%s strengths = %v (%v), want %v", drug, got, labels(e.Strengths), want)
		}
	}
	e, _ := LookupDoses("adrenaline")
	if got := labels(e.Strengths); !slices.Equal(got, []string{"1 mg/mL (1 in 1000)", "0.1 mg/mL (1 in 10,000)"}) {
		t.Errorf("adrenaline strength labels = %q", got)
	}
}

func TestParseFormularyRejectsBadData(t *testing.T) {
	const good = `sources: {BNF: the BNF}
drugs:
  aspirin:
    unit: mg
    routes:
      - {route: PO, onset: 5m, peak: 30m, duration: 4h, usual: 300 mg, max: 900 mg}
    source: BNF
`
	if _, err := parseFormulary([]byte(good)); err != nil {
		t.Fatalf("the good entry fails: %v", err)
	}
	cases := []struct{ name, old, new, want string }{
		{"unknown drug", "  aspirin:", "  aspirine:", `"aspirine" is not in the drug catalogue`},
		{"alias", "  aspirin:", "  asa:", `write the drug as "aspirin"`},
		{"unknown route", "route: PO", "route: ORAL", `unknown route "ORAL"`},
		{"unknown unit", "unit: mg", "unit: grains", `unit "grains"`},
		{"dose in the wrong unit", "usual: 300 mg", "usual: 300 units", `"300 units" is not a dose in mg`},
		{"usual above max", "usual: 300 mg", "usual: 1 g", "the usual dose is above the maximum"},
		{"max ten times usual", "max: 900 mg", "max: 3 g", "ten times the usual dose"},
		{"range backwards", "usual: 300 mg", "usual: 300-100 mg", "not a range from low to high"},
		{"range as a max", "max: 900 mg", "max: 300-900 mg", "a maximum is one dose"},
		{"missing dose", "usual: 300 mg, ", "", "a dose is needed"},
		{"window without total", "max: 900 mg}", "max: 900 mg, window: 24h}", "a window needs a total"},
		{"total below max", "max: 900 mg}", "max: 900 mg, total: 600 mg}", "the total is below the maximum single dose"},
		{"duplicate route", "      - {route: PO, onset: 5m, peak: 30m, duration: 4h, usual: 300 mg, max: 900 mg}", "      - {route: PO, onset: 5m, peak: 30m, duration: 4h, usual: 300 mg, max: 900 mg}\n      - {route: PO, onset: 5m, peak: 30m, duration: 4h, usual: 300 mg, max: 900 mg}", "listed twice"},
		{"missing onset", "onset: 5m, ", "", `missing required field "onset"`},
		{"peak before onset", "peak: 30m", "peak: 1m", "onset ≤ peak ≤ duration"},
		{"duration before peak", "duration: 4h", "duration: 10m", "onset ≤ peak ≤ duration"},
		{"bad strength", "unit: mg", "unit: mg\n    strengths: [300 mg]", `"300 mg" is not a strength`},
		{"route strength not the drug's", "max: 900 mg}", "max: 900 mg, strengths: [10 mg/mL]}", "not one of the drug's strengths"},
		{"unknown situation", "max: 900 mg}", "max: 900 mg, only_in: asthma}", `only_in "asthma"`},
		{"missing source", "    source: BNF\n", "", `missing required field "source"`},
		{"unknown field", "unit: mg", "unit: mg\n    colour: white", `unknown field "colour"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(good, c.old, c.new, 1)
			if doc == good {
				t.Fatal("case does not change the document")
			}
			_, err := parseFormulary([]byte(doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestWriteFormulary(t *testing.T) {
	e, _ := LookupDoses("adrenaline")
	var b bytes.Buffer
	if err := WriteFormulary(&b, []*DrugDoses{e}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"adrenaline (epinephrine)\n",
		"  strengths: 1 mg/mL (1 in 1000), 0.1 mg/mL (1 in 10,000)\n",
		"  route  usual   max single  max in all  repeat after  onset  peak    duration\n",
		"  IM     0.5 mg  0.5 mg      —           5 min         1 min  10 min  30 min\n",
		"  IV: cardiac arrest only; 0.1 mg/mL (1 in 10,000); cardiac arrest: 1 mg",
		"  source: RCUK-ANA; RCUK-ALS; BNF adrenaline/epinephrine; timing from RCUK-ANA",
		"sources\n  BNF: British National Formulary",
		"  RCUK-ANA: Resuscitation Council UK, Emergency treatment of anaphylaxis",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "JBDS") {
		t.Error("the sources list a source no written entry cites")
	}
}

func TestWriteFormularyListsEveryDrug(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFormulary(&b, Formulary()); err != nil {
		t.Fatal(err)
	}
	for _, e := range Formulary() {
		if !strings.Contains(b.String(), "\n"+e.Name) && !strings.HasPrefix(b.String(), e.Name) {
			t.Errorf("%s is missing from the formulary", e.Name)
		}
	}
	if !strings.Contains(b.String(), "  INH    to effect  —") {
		t.Error("Entonox should show as taken to effect")
	}
}

// BenchmarkParseFormulary is the one-off cost of the first dose check.
func BenchmarkParseFormulary(b *testing.B) {
	for b.Loop() {
		if _, err := parseFormulary(formularyData); err != nil {
			b.Fatal(err)
		}
	}
}
