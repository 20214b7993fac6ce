package physio

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// An arrest has no output: no pulse, no pressure, no saturation, GCS 3, gasps that stop; EtCO2
// follows the compressions, and jumps at ROSC.
func TestArrestVitalsFollowTheRhythm(t *testing.T) {
	e, _ := play(t, "arrest-vf-ward", 40, step{5, "attach the monitor"})
	v := e.TrueVitals()
	if v.HR != 0 || v.SBP != 0 || v.DBP != 0 || v.SpO2 != 0 || v.GCS != 3 || v.RR != 4 {
		t.Fatalf("in VF: %+v, want no pulse, BP or SpO2, GCS 3, agonal RR 4", v)
	}
	if v.EtCO2 > 10 {
		t.Errorf("EtCO2 %d with no compressions, want under 10", v.EtCO2)
	}
	for _, say := range []string{"start CPR", "compressions too shallow"} {
		e.Apply(action.Parse(say)[0])
		e.AdvanceTo(e.Clock()+5, nil)
		if got := e.TrueVitals().EtCO2; say == "start CPR" && got < 18 || say != "start CPR" && (got < 8 || got > 16) {
			t.Errorf("after %q EtCO2 %d", say, got)
		}
	}
	e.AdvanceTo(e.Clock()+120, nil)
	if v := e.TrueVitals(); v.RR != 0 {
		t.Errorf("RR %d two minutes into the arrest with no airway, want 0", v.RR)
	}
}

// A shock restarts the heart or not by the seeded draw; the same seed draws the same, and an
// engine restored mid-arrest goes on exactly as the original.
func TestArrestIsDeterministic(t *testing.T) {
	steps := []step{{31, "crash call, start CPR"}, {50, "pads on"}, {240, "stop CPR, rhythm check"},
		{243, "shock 150 J, resume CPR"}, {360, "rhythm check"}, {363, "shock 200 J, resume CPR"}}
	a, _ := play(t, "arrest-vf-ward", 600, steps...)
	b, _ := play(t, "arrest-vf-ward", 300, steps[:4]...)
	c, err := Restore(b.Snapshot(), b.Scenario())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps[4:] {
		c.AdvanceTo(s.at, nil)
		for _, act := range action.Parse(s.say) {
			c.Apply(act)
		}
	}
	c.AdvanceTo(600, nil)
	ja, _ := json.Marshal(a.Snapshot())
	jc, _ := json.Marshal(c.Snapshot())
	if string(ja) != string(jc) {
		t.Errorf("restored engine diverged:\n%s\n%s", ja, jc)
	}
}

// Left alone, VF fines and then decays to asystole.
func TestVFDecaysWithoutFlow(t *testing.T) {
	e, _ := play(t, "arrest-vf-ward", 30+5*60+1)
	if r := e.Rhythm(); r != sc.FineVF {
		t.Errorf("after 5 minutes of no flow the rhythm is %s, want fine VF", r)
	}
	e.AdvanceTo(30+12*60+1, nil)
	if r := e.Rhythm(); r != sc.Asystole {
		t.Errorf("after 12 minutes of no flow the rhythm is %s, want asystole", r)
	}
}

// A shock on asystole, on PEA or on a perfusing rhythm is a critical error and does nothing.
func TestShockOnANonShockableRhythmIsACriticalError(t *testing.T) {
	for _, c := range []struct{ scenario, state string }{
		{"arrest-asystole-stop", "asystole"}, {"arrest-pea-tension", "pea-arrest"}, {"acs-sildenafil", "stemi"},
	} {
		e, _ := play(t, c.scenario, 60, step{55, "shock 150 J"})
		errs := e.CriticalErrors()
		if len(errs) != 1 || errs[0].ID != "shock-not-shockable" || e.State() != c.state {
			t.Errorf("%s: errors %v, state %s", c.scenario, errs, e.State())
		}
	}
}

// Adrenaline 1 mg IV outside an arrest is stopped by the Pharmacist; given anyway, it is a
// critical error.
func TestAdrenalineBolusOutsideArrest(t *testing.T) {
	e, events := play(t, "acs-sildenafil", 130, step{10, "IV access"}, step{120, "adrenaline 1 mg IV"})
	if orders := eventsOf(events, EventOrder); len(orders) != 1 || orders[0].Order.Given {
		t.Fatalf("orders %+v, want one stopped", orders)
	}
	e.Apply(action.Parse("override, give adrenaline 1 mg IV")[0])
	if errs := e.CriticalErrors(); len(errs) != 1 {
		t.Errorf("critical errors %v, want the overridden bolus", errs)
	}
	in, _ := play(t, "arrest-pea-tension", 120, step{60, "start CPR"}, step{70, "IO access, adrenaline 1 mg IO"})
	if len(in.CriticalErrors()) > 0 || len(in.Arrest().StepsOf(StepAdrenaline)) != 1 {
		t.Errorf("in arrest: errors %v, steps %+v", in.CriticalErrors(), in.Arrest().Steps)
	}
}

// Drug timing against RCUK ALS 2021: shockable, adrenaline and amiodarone after the third
// shock; non-shockable, adrenaline as soon as there is access; repeats every 3–5 minutes.
// The unsurvivable arrest never restarts, and stopping is judged against the guideline.
// The trace: asystole is flat, sinus rhythm beats at its rate, VF is fast and disorganised,
// compressions swamp whatever is beneath.
func TestTraceShapes(t *testing.T) {
	samples := func(tr Trace) []float64 { return tr.Samples(make([]float64, 1000), 100, 110) }
	peaks := func(s []float64, above float64) int {
		n := 0
		for i := 1; i < len(s); i++ {
			if s[i] > above && s[i-1] <= above {
				n++
			}
		}
		return n
	}
	span := func(s []float64) float64 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range s {
			lo, hi = min(lo, v), max(hi, v)
		}
		return hi - lo
	}
	if s := span(samples(Trace{Rhythm: sc.Asystole})); s > 0.1 {
		t.Errorf("asystole spans %g mV", s)
	}
	if n := peaks(samples(Trace{Rhythm: sc.SinusRhythm, Rate: 72}), 0.5); n != 12 {
		t.Errorf("sinus at 72/min: %d R waves in 10 s, want 12", n)
	}
	vf := samples(Trace{Rhythm: sc.CoarseVF, Seed: 99})
	if n := peaks(vf, 0); n < 30 || n > 80 || span(vf) < 0.5 {
		t.Errorf("coarse VF: %d upswings in 10 s, span %g", n, span(vf))
	}
	if s := span(samples(Trace{Rhythm: sc.Asystole, CPR: true})); s < 1 {
		t.Errorf("compressions on asystole span %g mV, want the artefact", s)
	}
}

func TestSameRhythm(t *testing.T) {
	for _, c := range []struct {
		said string
		r    sc.Rhythm
		want bool
	}{{"VF", sc.FineVF, true}, {"VF", sc.PEA, false}, {"coarse VF", sc.FineVF, true}, {"PEA", sc.PEA, true},
		{"asystole", sc.FineVF, false}, {"sinus rhythm", sc.PEA, false}, {"", sc.Asystole, false}} {
		if got := SameRhythm(c.said, c.r); got != c.want {
			t.Errorf("SameRhythm(%q, %s) = %v", c.said, c.r, got)
		}
	}
}

// Left untreated, four of the first scenarios end in a cardiac arrest of their own kind.
func TestArrestsReachedFromScenarios(t *testing.T) {
	for _, c := range []struct {
		scenario, state string
		minutes         float64
		rhythm          sc.Rhythm
	}{
		{"acs-sildenafil", "vf-arrest", 35, sc.CoarseVF},
		{"asthma-exacerbation", "hypoxic-arrest", 26, sc.PEA},
		{"opioid-overdose", "hypoxic-arrest", 17, sc.PEA},
		{"anaphylaxis", "pea-arrest", 25, sc.PEA},
	} {
		e, _ := play(t, c.scenario, c.minutes*60)
		if e.State() != c.state || e.Rhythm() != c.rhythm || e.Arrest() == nil {
			t.Errorf("%s after %g min: %s in %s", c.scenario, c.minutes, e.State(), e.Rhythm())
		}
	}
}

// The hypoxic arrest of the overdose restarts only once he is ventilated.
func TestHypoxicArrestNeedsVentilation(t *testing.T) {
	checks := func(from float64, extra string) []step {
		var out []step
		for i := 0; i < 6; i++ {
			at := from + float64(i*120)
			out = append(out, step{at, "stop compressions, rhythm check"}, step{at + 5, "resume CPR" + extra})
		}
		return out
	}
	start := []step{{17 * 60, "crash call, start CPR"}, {17*60 + 30, "IO access, adrenaline 1 mg IO"}}
	e, _ := play(t, "opioid-overdose", 45*60, append(start, checks(19*60, "")...)...)
	if e.Arrest().ROSC >= 0 {
		t.Errorf("ROSC without ventilation: %+v", e.Arrest().Steps)
	}
	e, _ = play(t, "opioid-overdose", 45*60, append(append(start, step{18 * 60, "ventilate with the bag valve mask"}), checks(19*60, "")...)...)
	if e.Arrest().ROSC < 0 || e.State() != "rosc" {
		t.Errorf("no ROSC after ventilation in six checks: %s, %+v", e.State(), e.Arrest().Steps)
	}
}

// A patient found in arrest shows no output from the first reading.
func TestFoundInArrestShowsNoOutput(t *testing.T) {
	e := NewEngine("patient_1", scenario(t, "arrest-asystole-stop"), 42, 0)
	events := e.Apply(action.Parse("attach the monitor")[0])
	r := eventsOf(events, EventVitals)
	if len(r) != 1 || r[0].Reading.HR != 0 || r[0].Reading.SBP != 0 || r[0].Reading.SpO2 != 0 {
		t.Errorf("first reading %+v", r)
	}
}

// A tube with no waveform capnography is a delta; with it, none.
// Doses against the algorithm: adrenaline 1 mg, amiodarone 300 mg then 150 mg.
// A scenario's own transitions carry the arrest with them: into another arrest rhythm, and out
// into a rhythm with output, which is a return of circulation.
func TestArrestFollowsTheScenario(t *testing.T) {
	s, errs := sc.Parse([]byte(`id: course
title: Course
demographics: {name: A, age: 60, sex: M}
chief_complaint: collapse
presentation: collapsed in the corridor
news2: {scale: 1}
initial_state: vf
findings: {airway: open, breathing: none, percussion: resonant, auscultation: silent, heart: silent, pulses: none,
  cap_refill: none, skin: grey, abdomen: soft, pupils: dilated, gcs: E1 V1 M1, limbs: limp, focused: none}
states:
  vf:
    rhythm: coarse VF
    vitals: {hr: 30, rr: 0, spo2: 60, sbp: 40, dbp: 20, temp_c: 36.5, gcs: 3}
  asystole:
    rhythm: asystole
    vitals: {hr: 30}
  back:
    rhythm: sinus tachycardia
    vitals: {hr: 110, sbp: 100}
transitions:
  - {from: vf, to: asystole, when: [{time_in_state: 60}]}
  - {from: asystole, to: back, when: [{time_in_state: 60}]}
arrest: {rosc: back}
critical_actions:
  - {id: cpr, description: compressions, match: {kind: cpr}, within: 60, points: 100}
learning_objectives: [learn]
scoring: {trajectory: 0, allergies_first: 0, reassessment: 0, hard_stop: 25, warning: 5}
`))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	e := NewEngine("patient_1", s, 42, 0)
	e.AdvanceTo(61, nil)
	if e.Rhythm() != sc.Asystole || !e.Arrest().Active() {
		t.Fatalf("after the move to asystole: %s, %+v", e.Rhythm(), e.Arrest())
	}
	e.AdvanceTo(122, nil)
	if e.Rhythm() != sc.SinusTachycardia || e.Arrest().ROSC < 0 || e.TrueVitals().SBP == 0 {
		t.Errorf("after the move out of arrest: %s, ROSC %d, %+v", e.Rhythm(), e.Arrest().ROSC, e.TrueVitals())
	}
}
