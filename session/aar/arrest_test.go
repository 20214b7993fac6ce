package aar

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/physio"
)

// Drug timing against RCUK ALS 2021: shockable, adrenaline and amiodarone after the third
// shock; non-shockable, adrenaline as soon as there is access; repeats every 3–5 minutes.
func TestDrugTimings(t *testing.T) {
	shock := func(t int64) physio.ArrestStep { return physio.ArrestStep{T: t, What: physio.StepShock} }
	adr := func(t int64) physio.ArrestStep { return physio.ArrestStep{T: t, What: physio.StepAdrenaline} }
	amio := func(t int64) physio.ArrestStep { return physio.ArrestStep{T: t, What: physio.StepAmiodarone} }
	cases := []struct {
		name      string
		shockable bool
		access    int64
		steps     []physio.ArrestStep
		want      string
	}{
		{"before the third shock", true, -1, []physio.ArrestStep{shock(60), shock(180), adr(200)}, Early},
		{"after the third shock", true, -1, []physio.ArrestStep{shock(60), shock(180), shock(300), adr(330), amio(335)}, OnTime + "," + OnTime},
		{"a repeat at 2 minutes", true, -1, []physio.ArrestStep{shock(60), shock(180), shock(300), adr(330), adr(450)}, OnTime + "," + Early},
		{"a repeat at 4 minutes", true, -1, []physio.ArrestStep{shock(60), shock(180), shock(300), adr(330), adr(570)}, OnTime + "," + OnTime},
		{"non-shockable at once", false, 60, []physio.ArrestStep{adr(90)}, OnTime},
		{"non-shockable late", false, 60, []physio.ArrestStep{adr(400)}, Late},
		{"amiodarone in PEA", false, 60, []physio.ArrestStep{adr(90), amio(100)}, OnTime + "," + WrongRhythm},
	}
	for _, c := range cases {
		a := &physio.ArrestRecord{Onset: 0, Access: c.access, Steps: c.steps}
		var got []string
		for _, d := range drugTimings(a, c.shockable) {
			got = append(got, d.Verdict)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: %v, want %s", c.name, got, c.want)
		}
	}
	a := &physio.ArrestRecord{Onset: 0, Access: -1, Steps: []physio.ArrestStep{shock(60), shock(180), shock(300)}}
	if m := missedDrugs(a, true, 600); len(m) != 2 {
		t.Errorf("missed after three shocks and five minutes: %+v, want adrenaline and amiodarone", m)
	}
}

// The unsurvivable arrest never restarts, and stopping is judged against the guideline.
func TestArrestStopDecision(t *testing.T) {
	// The first adrenaline goes in when the cannula does, a minute after it is ordered at 01:30,
	// so the next is due three to five minutes after that.
	good := []step{{15, "crash call, start CPR"}, {40, "pads on"}, {60, "stop compressions, rhythm check"},
		{64, "this is asystole, resume CPR"}, {90, "IV access, adrenaline 1 mg IV"}, {120, "consider the 4 Hs and 4 Ts"}}
	for t0 := int64(360); t0 < 1350; t0 += 240 {
		good = append(good, step{float64(t0), "stop compressions, rhythm check and pulse check"},
			step{float64(t0 + 5), "resume CPR, adrenaline 1 mg IV"})
	}
	good = append(good, step{1360, "we'll stop resuscitation"})
	e, _ := play(t, "arrest-asystole-stop", 1400, good...)
	r := Of(e)
	if l := scoreLine(r, "the reasons"); l.Points != 0 || l.Max != 10 {
		t.Errorf("the reasons before any reflective answer: %+v", l)
	}
	_, err := e.Dispose("ward")
	for _, answer := range []string{"unwitnessed with a long no-flow time, asystole throughout, no reversible cause, advanced cancer, low EtCO2",
		"a team decision after more than 20 minutes of ALS in asystole; time of death stated; the family told and a debrief for staff"} {
		err = errors.Join(err, e.Reflect(answer))
	}
	if err != nil {
		t.Fatal(err)
	}
	r = Of(e)
	if e.Arrest().ROSC >= 0 || r.Arrest.Stop == nil || !r.Arrest.Stop.InLine {
		t.Fatalf("stop: %+v, ROSC %d", r.Arrest.Stop, e.Arrest().ROSC)
	}
	if a := part(r, PartActions); a.Points != a.Max || len(r.CriticalErrors) > 0 || scoreLine(r, "the reasons").Points != 10 {
		t.Errorf("score %d, errors %v:\n%s", r.Score.Total, r.CriticalErrors, r.Markdown())
	}
	early, _ := play(t, "arrest-asystole-stop", 400, step{60, "start CPR"}, step{300, "stop resuscitation"})
	if s := Of(early).Arrest.Stop; s == nil || s.InLine {
		t.Errorf("stopping at 4 minutes without the causes: %+v", s)
	}
}

// A tube with no waveform capnography is a delta; with it, none.
func TestTubeNeedsCapnography(t *testing.T) {
	unconfirmed := func(say string) bool {
		e, _ := play(t, "arrest-pea-tension", 200, step{60, "start CPR"}, step{120, say})
		return strings.Contains(debriefText(Of(e)), "no waveform capnography")
	}
	if !unconfirmed("intubate him") || unconfirmed("intubate him and start waveform capnography") {
		t.Error("the tube's confirmation is judged wrong")
	}
}

func debriefText(r Report) string {
	var b strings.Builder
	for _, p := range r.Debrief {
		b.WriteString(p.Text + "\n")
	}
	return b.String()
}

// Doses against the algorithm: adrenaline 1 mg, amiodarone 300 mg then 150 mg.
func TestDrugDoses(t *testing.T) {
	e, _ := play(t, "arrest-pea-tension", 200, step{50, "start CPR"}, step{60, "IO access, adrenaline 0.5 mg IO"},
		step{70, "amiodarone 150 mg IO"})
	var got []string
	for _, d := range Of(e).Arrest.Drugs {
		got = append(got, d.Verdict)
	}
	if strings.Join(got, ",") != WrongDose+","+WrongRhythm {
		t.Errorf("verdicts %v, want adrenaline at a wrong dose and amiodarone for the wrong rhythm", got)
	}
	a := &physio.ArrestRecord{Access: -1, Steps: []physio.ArrestStep{{T: 60, What: physio.StepShock}, {T: 180, What: physio.StepShock}, {T: 300, What: physio.StepShock},
		{T: 320, What: physio.StepAmiodarone, DoseMg: 300}, {T: 420, What: physio.StepShock}, {T: 540, What: physio.StepShock},
		{T: 560, What: physio.StepAmiodarone, DoseMg: 150}}}
	for _, d := range drugTimings(a, true) {
		if d.Verdict != OnTime {
			t.Errorf("%s: %s (%s)", d.Drug, d.Verdict, d.Why)
		}
	}
}

// A debrief must name a shock given on a rhythm that is not shockable.
func TestDebriefMustNameAWrongShock(t *testing.T) {
	e, _ := play(t, "arrest-asystole-stop", 60, step{30, "shock 150 J"})
	r := Of(e)
	lacksTheShock := func(text string) bool {
		return slices.ContainsFunc(r.Unnamed(text), func(p Point) bool { return p.Kind == PointCriticalError })
	}
	if !lacksTheShock("The compressions were good.") {
		t.Error("a debrief that never mentions the shock passes")
	}
	if lacksTheShock("Never shock asystole.") {
		t.Error("a debrief naming the shock still lacks it")
	}
}
