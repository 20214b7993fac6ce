package physio

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Each order gets one verdict: given or not, and what the Pharmacist says, in plain words with no
// rule name.
func TestOrderVerdicts(t *testing.T) {
	cases := []struct {
		name     string
		scenario string
		before   []string // said first, a second apart
		order    string
		verdict  sc.VerdictKind
		given    bool
		say      string // a part of what the Pharmacist says; "" for nothing said
	}{
		{"usual dose", "anaphylaxis", nil, "adrenaline 0.5 mg IM", sc.DoseOK, true, ""},
		{"overdose by the wrong route", "anaphylaxis", nil, "give adrenaline 50 mg IV", sc.DoseStop, false,
			"STOP — adrenaline IV is for cardiac arrest only; otherwise give it IM, usually 0.5 mg. " +
				"STOP — adrenaline 50 mg IV is 50× the usual 1 mg; the maximum single dose is 1 mg. " +
				`Not given. To give it anyway, repeat the order with the word "override".`},
		{"the same overdose overridden", "anaphylaxis", nil, "give adrenaline 50 mg IV, override", sc.DoseStop, true,
			"Given on your override; it is recorded."},
		{"a volume of a strength", "anaphylaxis", nil, "adrenaline 0.5 ml of 1:1000 IM", sc.DoseOK, true, ""},
		{"no dose", "anaphylaxis", nil, "give some adrenaline", sc.DoseAsk, false,
			"How much adrenaline, and by which route? e.g. 0.5 mg IM. Nothing was given."},
		{"a known penicillin allergy", "anaphylaxis", []string{"any allergies?"}, "give amoxicillin 500 mg PO",
			sc.DoseStop, false, "STOP — penicillin allergy (hives and facial swelling): amoxicillin is a penicillin. Not given."},
		{"an allergy nobody asked about", "anaphylaxis", nil, "give amoxicillin 500 mg PO", sc.DoseOK, true, ""},
		{"a known allergy overridden", "anaphylaxis", []string{"any allergies?"}, "override: amoxicillin 500 mg PO",
			sc.DoseStop, true, "STOP — penicillin allergy"},
		{"the presenting condition is known", "asthma-exacerbation", nil, "propranolol 40 mg PO", sc.DoseStop, false,
			"STOP — not propranolol: a beta-blocker can provoke severe, even fatal, bronchospasm in asthma."},
		{"a cross-reacting opioid warns", "fracture-morphine-allergy", []string{"any allergies?"}, "codeine 30 mg PO",
			sc.DoseWarn, true, "may cross-react; consider fentanyl"},
		{"a low dose is given and said", "hypoglycaemia", nil, "give 100 ml of 10% glucose IV", sc.DoseLow, true,
			"Low dose — glucose 10 g IV is below the usual 15–20 g; expect about 67% of the usual effect."},
		{"a fourth morphine dose over the maximum", "acs-sildenafil", []string{"morphine 5 mg IV", "morphine 5 mg IV",
			"morphine 5 mg IV"}, "morphine 10 mg IV", sc.DoseStop, false, "would be the fourth dose, 25 mg in all"},
		{"sildenafil, once told, stops a nitrate", "acs-sildenafil", []string{"what medications do you take?"},
			"GTN 400 mcg SL", sc.DoseStop, false, "STOP — sildenafil taken 10 h ago"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps := []step{}
			for i, say := range c.before {
				steps = append(steps, step{float64(i), say})
			}
			e, _ := playFrom(t, cannulated(t, c.scenario, 42), float64(len(c.before)), steps...)
			var orders []Event
			for _, a := range action.Parse(c.order) {
				orders = append(orders, eventsOf(e.Apply(a), EventOrder)...)
			}
			o := onlyEvent(t, orders).Order
			if o.Verdict != c.verdict || o.Given != c.given {
				t.Errorf("verdict %s given %v, want %s given %v: %s", o.Verdict, o.Given, c.verdict, c.given, o.Say)
			}
			if c.say == "" && o.Say != "" || !strings.Contains(o.Say, c.say) {
				t.Errorf("the Pharmacist says %q, want %q", o.Say, c.say)
			}
			for _, id := range []string{"hard_stop", "cross_reactivity", "over_max", "situation", "pde5"} {
				if strings.Contains(o.Say, id) {
					t.Errorf("the Pharmacist's words carry the identifier %q: %s", id, o.Say)
				}
			}
			given := 0
			for _, a := range e.Actions() {
				if a.Kind == sc.KindMedication && a.T == o.T && a.Drug == o.Drug {
					given++
				}
			}
			if (given == 1) != c.given {
				t.Errorf("the action log holds the order %d times; given %v", given, c.given)
			}
		})
	}
}

func onlyEvent(t *testing.T, events []Event) Event {
	t.Helper()
	if len(events) != 1 {
		t.Fatalf("want one event, got %d: %+v", len(events), events)
	}
	return events[0]
}

// An overdose stopped is a near miss: nothing given, no critical error, the body untouched. The
// same overdose overridden is given: the toxicity plays out and it is a critical error.
// Overdoses act by drug class, and an antidote undoes its own class's.
func TestOverdoseToxicityByClass(t *testing.T) {
	cases := []struct {
		name, scenario, order, antidote string
		worse                           func(tox, ctl Vitals) bool
	}{
		{"opioid: respiratory depression", "fracture-morphine-allergy", "fentanyl 1 mg IV override", "naloxone 400 mcg IV",
			func(tox, ctl Vitals) bool {
				return tox.RR <= ctl.RR-6 && tox.SpO2 <= ctl.SpO2-8 && tox.GCS <= ctl.GCS-4
			}},
		{"benzodiazepine: sedation", "fracture-morphine-allergy", "midazolam 50 mg IV override", "flumazenil 200 mcg IV",
			func(tox, ctl Vitals) bool { return tox.GCS <= ctl.GCS-4 && tox.RR < ctl.RR }},
		{"beta-blocker: bradycardia and hypotension", "fracture-morphine-allergy", "metoprolol 100 mg IV override", "",
			func(tox, ctl Vitals) bool { return tox.HR <= ctl.HR-20 && tox.SBP <= ctl.SBP-20 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			control, _ := playFrom(t, cannulated(t, c.scenario, 42), 600, step{5, "any allergies?"})
			e, _ := playFrom(t, cannulated(t, c.scenario, 42), 600, step{5, "any allergies?"}, step{10, c.order})
			if o := e.Orders()[len(e.Orders())-1]; !o.Given || o.Excess <= 1 {
				t.Fatalf("%s: %+v, want an overdose given on override", c.order, o)
			}
			if tox, ctl := e.TrueVitals(), control.TrueVitals(); !c.worse(tox, ctl) {
				t.Fatalf("after %s: %+v, against %+v without", c.order, tox, ctl)
			}
			if c.antidote == "" {
				return
			}
			for _, a := range action.Parse(c.antidote) {
				e.Apply(a)
			}
			e.AdvanceTo(1500, nil)
			control.AdvanceTo(1500, nil)
			if tox, ctl := e.TrueVitals(), control.TrueVitals(); c.worse(tox, ctl) {
				t.Errorf("%s did not reverse it: %+v, against %+v", c.antidote, tox, ctl)
			}
		})
	}
}

// Insulin's overdose is slow: glucose falls over minutes, then consciousness.
func TestInsulinOverdoseIsDelayedHypoglycaemia(t *testing.T) {
	e, _ := playFrom(t, cannulated(t, "sepsis-urosepsis", 42), 5*60, step{10, "insulin 100 units IV override"})
	early := e.TrueVitals()
	e.AdvanceTo(40*60, nil)
	late := e.TrueVitals()
	raw := e.raw()
	if raw[sc.Glucose] > 2.5 || late.GCS > early.GCS-4 {
		t.Errorf("40 min after 100 units: glucose %.1f, GCS %d (was %d); want hypoglycaemia and falling GCS",
			raw[sc.Glucose], late.GCS, early.GCS)
	}
}

// A dose below the usual one does part of its work: salbutamol's rise in heart rate (its
// intervention) is smaller after 1 mg than after 5 mg.
func TestLowDoseHasPartialEffect(t *testing.T) {
	hr := func(order string) float64 {
		e, _ := play(t, "asthma-exacerbation", 20*60, step{10, order})
		return e.s.Trend[sc.HR]
	}
	low, full := hr("salbutamol 1 mg nebulised with oxygen"), hr("salbutamol 5 mg nebulised with oxygen")
	control, _ := play(t, "asthma-exacerbation", 6*60, step{10, "salbutamol 5 mg nebulised with oxygen"})
	if o := control.Orders()[0]; o.Fraction != 1 {
		t.Fatalf("5 mg nebulised should be the full effect: %+v", o)
	}
	if !(low < full-2) {
		t.Errorf("HR trend %.1f after 1 mg, %.1f after 5 mg; want a smaller rise after the low dose", low, full)
	}
}

// Whatever is typed, an order is given exactly when the engine says so, and the Pharmacist's
// words carry no rule identifier.
func FuzzOrders(f *testing.F) {
	for _, c := range []string{"give adrenaline 50 mg IV override", "amoxicillin 500 mg PO", "give some adrenaline",
		"insulin 100 units IV, override", "morphine 0.5 ml of 10 mg/ml IV", "glucose 1/2 tube buccal", "salbutamol 2 puffs"} {
		f.Add(c)
	}
	s := scenario(f, "anaphylaxis")
	f.Fuzz(func(t *testing.T, text string) {
		e := NewEngine("patient_1", s, 1, 0)
		e.s.AccessAt = 0
		e.Apply(action.Action{Kind: sc.KindAsk, Topic: topicAllergies})
		for _, a := range action.Parse(text) {
			events := e.Apply(a)
			orders, actions := eventsOf(events, EventOrder), eventsOf(events, EventAction)
			if a.Kind != sc.KindMedication {
				continue
			}
			o := onlyEvent(t, orders).Order
			if o.Given != (len(actions) == 1) {
				t.Fatalf("%q: given %v with %d action events", text, o.Given, len(actions))
			}
			if strings.Contains(o.Say, "hard_stop") || strings.Contains(o.Say, "_") {
				t.Fatalf("%q: the Pharmacist says an identifier: %s", text, o.Say)
			}
		}
	})
}
