package session

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/session/aar"
)

// The body answers: the repros of issue 24, each played through `ward run` on the busy-ed
// shift with the offline backend, asserting what the bedside says now.

// busyED is a seeded rig on the busy-ed shift: asthma (patient_1), STEMI (2), fracture (3),
// hypoglycaemia (4).
func busyED(t *testing.T) *rig {
	return newRigWith(t, func(c *Config) { c.Seed, c.Shift = 42, "busy-ed" })
}

// turnSaid is what agent said in each turn, in order.
func turnSaid(events []jsonEvent, agent string) []string {
	var out []string
	for _, turn := range byTurn(events) {
		out = append(out, strings.Join(saidBy(turn, agent), "\n"))
	}
	return out
}

// An examination is answered from the state's findings, by the nurse, and the fracture's
// neurovascular check asked for is credited.
func TestExaminationIsAnsweredFromTheFindings(t *testing.T) {
	r := busyED(t)
	events := runJSON(t, r.s, lines("/switch patient_1", "listen to her chest", "/switch patient_3", "examine the leg",
		"check the pulses and sensation in the right foot", "/aar"))
	nurse := turnSaid(events, nurseAgent)
	wants := map[int]string{
		1: "On examination — breath sounds: widespread polyphonic expiratory wheeze",
		3: "limbs (neurovascular): right shin deformed mid-shaft, skin intact; the right foot is warm",
		4: "pulses: fast, regular radial pulse; right leg (neurovascular): right shin",
	}
	for i, want := range wants {
		if !strings.Contains(nurse[i], want) {
			t.Errorf("turn %d: the nurse said %q, want %q", i, nurse[i], want)
		}
	}
	for _, said := range saidBy(events, agents.AgentPatient) {
		if strings.Contains(said, "deformed") || strings.Contains(said, "wheeze") {
			t.Errorf("the patient voiced a finding: %q", said)
		}
	}
	rep := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event"))
	var credited bool
	for _, line := range rep.Score.Breakdown {
		if strings.Contains(line.Item, "circulation") {
			credited = line.Points == line.Max && line.Max > 0
		}
	}
	if !credited {
		t.Errorf("the neurovascular check asked for is not credited: %+v", rep.Score.Breakdown)
	}
}

// Orders are checked against the patient before the Pharmacist's dose check, and every drug of
// an order is answered: by mouth to a man who cannot swallow, IV with no access, a drug ward
// does not know, two drugs nebulised in one order.
func TestOrdersAreCheckedAgainstThePatient(t *testing.T) {
	r := busyED(t)
	events := runJSON(t, r.s, lines("/switch patient_4", "give aspirin 300 mg", "ceftriaxone 2 g IV", "give zorbazine 7 mg IV",
		"site a cannula", "ceftriaxone 2 g IV", "/switch patient_1", "give salbutamol 5 mg and ipratropium 500 micrograms nebulised",
		"give salbutamol 5 mg and ipratropium 500 micrograms nebulised with oxygen"))
	turns := byTurn(events)
	nurse, pharmacist := turnSaid(events, nurseAgent), turnSaid(events, agents.AgentPharmacist)
	wants := []struct {
		turn        int
		said, wants string
	}{
		{1, nurse[1], "He can't swallow safely (GCS 13), so not by mouth — nothing given of the aspirin."},
		{2, nurse[2], `There's no IV access yet: site a cannula first ("site a cannula", or "IO access") — ceftriaxone IM instead? Nothing given.`},
		{3, pharmacist[3], "zorbazine is not in the formulary; nothing given. Did you mean"},
		{4, nurse[4], "Siting a cannula — access in about 60 s."},
		{5, nurse[5], "Drawn up: ceftriaxone 2 g IV, to go in once access is in (about 60 s)."}, // the cannula of turn 4
		{7, nurse[7], "A nebuliser needs a gas to drive it"},
		{8, nurse[8], "Given: salbutamol 5 mg NEB. Given: ipratropium bromide 500 micrograms NEB."},
	}
	for _, w := range wants {
		if !strings.Contains(w.said, w.wants) {
			t.Errorf("turn %d %q: said %q, want %q", w.turn, turns[w.turn][0].str("input"), w.said, w.wants)
		}
	}
	for _, i := range []int{1, 2, 3} {
		for _, o := range ofKind(turns[i], "order") {
			if o["given"] != false {
				t.Errorf("turn %d: order %v was given", i, o)
			}
		}
	}
	if n := len(ofKind(turns[7], "order")); n != 2 {
		t.Errorf("two drugs nebulised in one order made %d orders, want one each", n)
	}
	for _, a := range ofKind(turns[3], "action") {
		t.Errorf("an unknown drug made an action: %v", a)
	}
}

// Drugs take time: what the patient says follows the drug's course, not the order. Oral
// prednisolone does nothing for an hour; nebulised salbutamol eases her only after its onset;
// IM adrenaline settles a reaction after its onset, and he says so once his body shows it.
func TestDrugsTakeTime(t *testing.T) {
	r := busyED(t)
	events := runJSON(t, r.s, lines("/switch patient_1", "sit her up, oxygen 15 L via non-rebreather", "prednisolone 40 mg PO",
		"how are you feeling?", "salbutamol 5 mg nebulised", "how are you feeling?", "/wait 6m", "how are you feeling?"))
	patient := turnSaid(events, agents.AgentPatient)
	for _, i := range []int{3, 5} {
		if strings.Contains(patient[i], "easier") {
			t.Errorf("turn %d: the patient felt better before the drug acted: %q", i, patient[i])
		}
	}
	if !strings.Contains(patient[7], "A bit easier") {
		t.Errorf("six minutes after salbutamol she said %q, want it easing", patient[7])
	}
	if st := r.engine("patient_1").State(); st != "responding" {
		t.Errorf("six minutes after salbutamol the engine is in %s, want responding", st)
	}

	events = runJSON(t, r.s, lines("/admit patient_5 anaphylaxis", "adrenaline 0.5 mg IM", "any better?", "check vitals",
		"/wait 2m", "any better?", "/wait 2m", "any better?", "check vitals"))
	patient = turnSaid(events, agents.AgentPatient)
	easing := regexp.MustCompile(`Less itchy|easier|loosening`)
	if easing.MatchString(patient[2]) {
		t.Errorf("seconds after IM adrenaline he said %q", patient[2])
	}
	// The adrenaline acts at a minute; his words follow his body once it has come half way.
	if easing.MatchString(patient[5]) {
		t.Errorf("two minutes after IM adrenaline, his pressure still low, he said %q", patient[5])
	}
	if !easing.MatchString(patient[7]) {
		t.Errorf("four minutes after IM adrenaline he said %q, want the reaction easing", patient[7])
	}
	turns := byTurn(events)
	before, after := onlyOne(t, ofKind(turns[3], "vitals"), "vitals"), onlyOne(t, ofKind(turns[8], "vitals"), "vitals")
	if after.num("sbp") < before.num("sbp")+10 {
		t.Errorf("he says he is easing with his pressure at %g (was %g)", after.num("sbp"), before.num("sbp"))
	}
}

// NEWS2 Scale 2 is the trainee's decision: the COPD patient is scored on Scale 1 until a target
// of 88–92 % is prescribed (taken at once, BTS 2017) and his hypercapnia is documented; his
// oxygen alert card is found by asking about home oxygen; every reading says its scale.
func TestScale2IsTheTraineesDecision(t *testing.T) {
	r := busyED(t)
	events := runJSON(t, r.s, lines("/admit patient_5 copd-exacerbation", "check vitals", "target sats 88-92",
		"do you use oxygen at home?", "target sats 88-92", "check vitals"))
	turns := byTurn(events)
	first := onlyOne(t, ofKind(turns[1], "vitals"), "vitals")
	if first.num("news2_scale") != 1 || !strings.Contains(strings.Join(saidBy(turns[1], agents.AgentMonitor), ""), "(Scale 1)") {
		t.Errorf("on arrival: %v, want Scale 1, said", first)
	}
	if nurse := strings.Join(saidBy(turns[2], nurseAgent), ""); !strings.Contains(nurse, "NEWS2 on Scale 1. Scale 2 once a blood gas") {
		t.Errorf("a target with nothing documented: the nurse said %q", nurse)
	}
	if told := strings.Join(saidBy(turns[3], agents.AgentPatient), ""); !strings.Contains(told, "I've a card") {
		t.Errorf("asked about home oxygen he said %q, want his oxygen alert card", told)
	}
	if nurse := strings.Join(saidBy(turns[4], nurseAgent), ""); !strings.Contains(nurse, "Target saturation 88–92 % prescribed: NEWS2 on Scale 2.") {
		t.Errorf("a target with the card found: the nurse said %q", nurse)
	}
	if last := onlyOne(t, ofKind(turns[5], "vitals"), "vitals"); last.num("news2_scale") != 2 {
		t.Errorf("after the target: %v, want Scale 2", last)
	}
	// The roster, drawn from the registry's summaries, says the scale too.
	for _, p := range r.s.Summaries() {
		if p.ID == "patient_5" && p.Scale != 2 {
			t.Errorf("the roster's summary of patient_5 is on Scale %d, want 2", p.Scale)
		}
	}
}

// The score and the debrief come from one record: naloxone praised as a rescue costs no
// allergies-first points; missed critical actions carry into what to change; the STEMI is not
// stabilised by aspirin alone without a call for primary PCI.
func TestAFairScore(t *testing.T) {
	r := busyED(t)
	events := runJSON(t, r.s, lines("/admit patient_5 opioid-overdose", "jaw thrust and ventilate with the bag valve mask",
		"naloxone 400 micrograms IM", "/wait 5m", "check vitals", "/aar"))
	rep := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event"))
	for _, l := range rep.Score.Breakdown {
		if strings.HasPrefix(l.Item, "allergies asked before") && l.Points != l.Max {
			t.Errorf("a rescue alone charged allergies first: %+v", l)
		}
	}
	missed := 0
	for _, p := range rep.Debrief {
		if p.Kind != "missed" {
			continue
		}
		missed++
		what, _, _ := strings.Cut(p.Text, " — not done")
		if !strings.Contains(rep.Markdown(), "Next time: "+what) {
			t.Errorf("the missed %q is not in what to change:\n%s", what, rep.Markdown())
		}
	}
	if missed == 0 {
		t.Fatalf("the overdose run missed nothing, so the test tests nothing:\n%s", rep.Markdown())
	}

	events = runJSON(t, r.s, lines("/switch patient_2", "attach the monitor and get a 12 lead ECG", "any allergies? what medications do you take?",
		"aspirin 300 mg PO", "/wait 6m", "/aar"))
	if st := r.engine("patient_2").State(); st == "stabilised" {
		t.Errorf("aspirin without a reperfusion decision stabilised the STEMI")
	}
	md := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event")).Markdown()
	for _, want := range []string{"A reperfusion decision — call the cath lab for primary PCI — not done", "Next time: A reperfusion decision"} {
		if !strings.Contains(md, want) {
			t.Errorf("the STEMI review lacks %q:\n%s", want, md)
		}
	}
	runJSON(t, r.s, lines("call the cath lab for primary PCI", "/wait 1m"))
	if st := r.engine("patient_2").State(); st != "stabilised" {
		t.Errorf("after the call for primary PCI the STEMI is %s, want stabilised", st)
	}
}

// An untreated patient worsens minute by minute: the unseen asthmatic's measured vitals change
// every few minutes and her NEWS2 climbs, instead of holding until a transition fires.
func TestAnUntreatedPatientKeepsWorsening(t *testing.T) {
	r := busyED(t)
	input := []string{"/switch patient_1"}
	for range 12 {
		input = append(input, "check vitals", "/wait 1m")
	}
	var readings []jsonEvent
	for _, ev := range ofKind(runJSON(t, r.s, lines(input...)), "vitals") {
		if ev.str("source") == "check" {
			readings = append(readings, ev)
		}
	}
	if len(readings) != 12 {
		t.Fatalf("%d readings, want 12", len(readings))
	}
	same := 0
	for i := 1; i < len(readings); i++ {
		a, b := readings[i-1], readings[i]
		if a.num("rr") == b.num("rr") && a.num("spo2") == b.num("spo2") && a.num("hr") == b.num("hr") && a.num("gcs") == b.num("gcs") {
			same++
			if same >= 3 {
				t.Errorf("RR, SpO2, HR and GCS unchanged for %d minutes at %v", same+1, b)
			}
		} else {
			same = 0
		}
	}
	if first, last := readings[0].num("news2"), readings[len(readings)-1].num("news2"); last <= first {
		t.Errorf("NEWS2 %g on arrival, %g eleven minutes later untreated; want it rising", first, last)
	}
}

// On a model backend the examination is the engine's all the same: the nurse says the state's
// findings word for word, whatever the model's Patient says; the Patient hears the nurse say
// them, but its own facts never hold them, so they are never the patient's to tell.
func TestExaminationOnAModelBackend(t *testing.T) {
	r, f := onFake(t, false, false, ollamatest.Answer(`{"reply":"*winces as you listen*","entities_to_update":{},"derived_entities_to_update":{}}`))
	r.turn("/admit patient_1 asthma-exacerbation")
	events := r.turn("listen to her chest")
	var nurse string
	for _, m := range agentMessages(events) {
		if m.Agent == nurseAgent {
			nurse = m.Text
		}
	}
	want := "On examination — breath sounds: " + r.engine("patient_1").CurrentState().Finding("auscultation") + "."
	if nurse != want {
		t.Errorf("the nurse said %q, want %q", nurse, want)
	}
	for _, req := range f.Requests() {
		for _, m := range req.Messages {
			if strings.HasPrefix(m.Content, "Engine facts: {") && strings.Contains(m.Content, "widespread polyphonic expiratory wheeze") {
				t.Errorf("the model's Patient was given the finding as a fact of its own: %q", m.Content)
			}
		}
	}
}

// The glucose and his words agree: straight after IV glucose the finger-prick still reads low and
// he is still muddled; once the glucose has risen he says he is better.
func TestGlucoseAndWordsAgree(t *testing.T) {
	r := busyED(t)
	events := runJSON(t, r.s, lines("/switch patient_4", "site a cannula", "/wait 1m", "give glucose 10% 150 mL IV",
		"check a BM. how are you feeling?", "/wait 5m", "check a BM. how are you feeling?"))
	turns := byTurn(events)
	glucose := func(turn []jsonEvent) float64 {
		for _, a := range ofKind(turn, "action") {
			if a.str("action") == "glucose_check" {
				return a.num("glucose")
			}
		}
		t.Fatal("no glucose check")
		return 0
	}
	early, late := glucose(turns[4]), glucose(turns[6])
	earlyWords, lateWords := strings.Join(saidBy(turns[4], agents.AgentPatient), ""), strings.Join(saidBy(turns[6], agents.AgentPatient), "")
	if early > 3 || strings.Contains(earlyWords, "Better") {
		t.Errorf("at the dose: glucose %g and he said %q; want it still low and him still muddled", early, earlyWords)
	}
	if late < 4 || !strings.Contains(lateWords, "Better") {
		t.Errorf("five minutes on: glucose %g and he said %q; want it risen and him better", late, lateWords)
	}
}

// More of the score's repros through ward run: oxygen alone charges no allergies-first, an
// oxygen-driven nebuliser is not an oxygen order, and a critical error made twice is one line.
func TestAFairScoreMore(t *testing.T) {
	r := busyED(t)
	scoreOf := func(events []jsonEvent, item string) (got aar.ScoreLine) {
		for _, l := range aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event")).Score.Breakdown {
			if strings.HasPrefix(l.Item, item) {
				got = l
			}
		}
		return got
	}
	events := runJSON(t, r.s, lines("/admit patient_5 copd-exacerbation", "oxygen via 28% venturi", "/aar"))
	if l := scoreOf(events, "allergies asked before"); l.Points != l.Max {
		t.Errorf("COPD with oxygen alone: %+v", l)
	}
	events = runJSON(t, r.s, lines("/switch patient_1", "salbutamol 5 mg nebulised with oxygen", "/aar"))
	if l := scoreOf(events, "Oxygen for her hypoxia"); l.Points != 0 {
		t.Errorf("an oxygen-driven nebuliser credited as oxygen: %+v", l)
	}
	events = runJSON(t, r.s, lines("site a cannula", "/wait 1m", "give lorazepam 1 mg IV", "/wait 1m", "give lorazepam 1 mg IV", "/aar"))
	rep := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event"))
	var errs []string
	for _, p := range rep.Debrief {
		if p.Kind == aar.PointCriticalError {
			errs = append(errs, p.Text)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "(×2, at") {
		t.Errorf("the sedation given twice is in the debrief as %q, want once with its count", errs)
	}
}
