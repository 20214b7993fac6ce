package session

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/scenario"
)

// The tests of this file play the repros of issue 33 ("One body, told truly") through `ward run`
// (the offline backend) and assert what the trainee hears is the engine's now.

// saidNumbers are the vitals a line of the nurse or the monitor names, by label: "HR 134",
// "BP 78/42" (SBP and DBP), "GCS 12", "NEWS2 16".
var saidNumbers = regexp.MustCompile(`\b(HR|RR|SpO2|SBP|BP|GCS|NEWS2) (\d+)(?:/(\d+))?`)

func numbersSaid(text string) map[string]int {
	out := map[string]int{}
	for _, m := range saidNumbers.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		switch m[1] {
		case "BP":
			out["sbp"] = n
			out["dbp"], _ = strconv.Atoi(m[3])
		default:
			out[strings.ToLower(m[1])] = n
		}
	}
	return out
}

// saidAsReadAt checks that every number an alarm or escalation says is the value of the newest
// reading of its patient taken at or before it sounded.
func saidAsReadAt(t *testing.T, events []jsonEvent) {
	t.Helper()
	latest := map[string]jsonEvent{}
	for _, e := range events {
		switch e.kind() {
		case "vitals":
			latest[e.str("patient_id")] = e
		case "alarm", "escalation":
			r, ok := latest[e.str("patient_id")]
			if !ok || r.num("t") > e.num("t") {
				t.Errorf("%s at %g says %q with no reading taken", e.kind(), e.num("t"), e.str("text"))
				continue
			}
			if strings.Contains(e.str("text"), "(first") || strings.Contains(e.str("text"), "since T+") {
				if r.num("t") != e.num("t") {
					t.Errorf("a repeat at %g was not observed afresh (newest reading at %g)", e.num("t"), r.num("t"))
				}
			}
			for label, n := range numbersSaid(e.str("text")) {
				if got := int(r.num(label)); got != n {
					t.Errorf("%s at %g says %s %d, the reading then has %d: %q", e.kind(), e.num("t"), label, n, got, e.str("text"))
				}
			}
		}
	}
}

// An educator's check: sepsis left untreated for 40 minutes, and on. Every repeat of the nurse's
// call says the numbers of the reading she has just taken, and when she first called; the
// patient keeps worsening, through septic shock into refractory shock; and the PEA arrest it
// ends in is called by the nurse, unmonitored, in the second it happens.
func TestRunUntreatedSepsisEscalationsSayTheNumbersNow(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed, c.Instructor = 3, true })
	events := runJSON(t, r.s, lines("/admit patient_1 sepsis-urosepsis", "/wait 40m", "/wait 60m"))
	saidAsReadAt(t, events)
	var escalations []jsonEvent // the first 40 minutes'
	for _, e := range ofKind(events, "escalation") {
		if e.num("t") <= 2400 {
			escalations = append(escalations, e)
		}
	}
	if len(escalations) < 5 {
		t.Fatalf("%d escalations in 40 unanswered minutes", len(escalations))
	}
	first, last := escalations[0], escalations[len(escalations)-1]
	if last.num("repeats") == 0 || !strings.Contains(last.str("text"), "first called at T+05:00") {
		t.Errorf("the last call %q, want a repeat that says when she first called", last.str("text"))
	}
	if numbersSaid(first.str("text"))["sbp"] == numbersSaid(last.str("text"))["sbp"] {
		t.Errorf("the first call %q and the last %q name the same blood pressure through septic shock", first.str("text"), last.str("text"))
	}
	// Untreated septic shock keeps worsening: no plateau from 20 to 40 minutes, nor after.
	sbp := map[float64]float64{}
	for _, v := range ofKind(events, "vitals") {
		sbp[v.num("t")] = v.num("sbp")
	}
	if at20, at40, at60 := sbp[1200], sbp[2400], sbp[3600]; at20 == 0 || at40 > at20-5 || at60 == 0 || at60 > at40-5 {
		t.Errorf("systolic %g at 20 minutes, %g at 40 and %g at 60, want it falling in untreated septic shock", at20, at40, at60)
	}
	var arrest float64 = -1
	for _, e := range ofKind(events, "state") {
		if e.str("to") == "pea-arrest" {
			arrest = e.num("t")
		}
	}
	if arrest < 2400 {
		t.Fatalf("untreated refractory septic shock: the arrest at %g, want one after the first 40 minutes", arrest)
	}
	called := false
	for _, e := range ofKind(events, "escalation") {
		called = called || e.num("t") == arrest && strings.HasPrefix(e.str("text"), "Cardiac arrest")
	}
	if !called {
		t.Errorf("the PEA arrest at %g was not called by the nurse in its second", arrest)
	}
}

// An educator's check: VF on the monitor alarms in the second the heart stops, and the screen's
// newest reading is the arrest's.
func TestRunVFOnTheMonitorAlarmsAtOnce(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed, c.Instructor = 42, true })
	events := runJSON(t, r.s, lines("/admit patient_1 arrest-vf-ward", "attach the monitor", "/wait 60s"))
	var onset float64 = -1
	for _, e := range ofKind(events, "state") {
		if e.str("to") == "vf-arrest" {
			onset = e.num("t")
		}
	}
	if onset < 0 {
		t.Fatal("no VF in the first minute")
	}
	alarms := ofKind(events, "alarm")
	if len(alarms) == 0 || alarms[0].num("t") > onset+1 || !strings.Contains(alarms[0].str("text"), "HR 0") {
		t.Errorf("alarms %v, want one within a second of VF at %g", alarms, onset)
	}
	v, _ := r.s.ActivePatient()
	if now := v.Readings[len(v.Readings)-1]; now.HR != 0 || now.T < 60 {
		t.Errorf("the screen's newest reading %+v, want the monitor's now in VF", now)
	}
}

// After the return of circulation the alarm still open says the numbers now, never the arrest's
// zeros; a pulse check finds a pulse, and a rhythm check outside an arrest names no rhythm and
// is no 12-lead.
func TestRunAfterROSCTheMonitorSaysNow(t *testing.T) {
	events, _ := arrestRun(t, "arrest-vf-ward", append(vfWell[:9:9],
		"04:00 check for a pulse", "04:20 rhythm check", "10:00 check vitals")...)
	saidAsReadAt(t, events)
	var rosc float64 = -1 // the first reading with a pulse after one without
	arrested := false
	for _, e := range ofKind(events, "vitals") {
		arrested = arrested || e["no_output"] == true
		if arrested && e["no_output"] != true && rosc < 0 {
			rosc = e.num("t")
		}
	}
	if rosc < 0 {
		t.Fatal("no ROSC")
	}
	for _, e := range ofKind(events, "alarm") {
		if e.num("t") > rosc && strings.Contains(e.str("text"), "HR 0") {
			t.Errorf("after ROSC at %g the alarm says %q", rosc, e.str("text"))
		}
	}
	said := monitorSaid(events)
	if !strings.Contains(said, "Pulse check: pulse present.") {
		t.Errorf("a pulse check after ROSC: %s", said)
	}
	if strings.Contains(said, "12-lead") || strings.Contains(strings.ToLower(said), "sinus") {
		t.Errorf("a rhythm check outside an arrest named the rhythm: %s", said)
	}
}

func monitorSaid(events []jsonEvent) string {
	var b strings.Builder
	for _, m := range ofKind(events, "message") {
		if m.str("agent") == "Monitor" || m.str("agent") == nurseAgent {
			b.WriteString(m.str("text") + "\n")
		}
	}
	return b.String()
}

// An educator's check: anaphylaxis after one IM dose of adrenaline, nobody at the bedside. The
// relapse as the adrenaline wears off is heard in the nurse's calls with the numbers then, and
// the arrest it ends in is called, in the second it happens, by the nurse no monitor helps.
func TestRunAnaphylaxisRelapseIsHeardAndTheArrestCalled(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed, c.Instructor = 42, true })
	events := runJSON(t, r.s, lines("/admit patient_1 anaphylaxis", "adrenaline 500 micrograms IM", "/wait 50m"))
	saidAsReadAt(t, events)
	var relapse, arrest float64 = -1, -1
	for _, e := range ofKind(events, "state") {
		switch {
		case e.str("from") == "responding" && e.str("to") == "reaction":
			relapse = e.num("t")
		case e.str("to") == "pea-arrest":
			arrest = e.num("t")
		}
	}
	if relapse < 0 || arrest < 0 {
		t.Fatalf("relapse at %g, arrest at %g", relapse, arrest)
	}
	news2 := []int{}
	called := false
	for _, e := range ofKind(events, "escalation") {
		if e.num("t") > relapse && e.num("t") < arrest {
			news2 = append(news2, numbersSaid(e.str("text"))["news2"])
		}
		if e.num("t") == arrest && strings.HasPrefix(e.str("text"), "Cardiac arrest") {
			called = true
		}
	}
	if len(news2) < 2 || news2[len(news2)-1] <= news2[0] {
		t.Errorf("NEWS2 in the calls after the relapse %v, want them to rise as she worsens", news2)
	}
	if !called {
		t.Errorf("the PEA arrest at %g was not called by the nurse", arrest)
	}
}

// Found by random play: the examination's GCS was the state's written one (12) while the engine,
// the monitor and the nurse had 11. One GCS everywhere.
func TestRunOneGCSInTheExaminationAndTheObservations(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 7 })
	events := runJSON(t, r.s, lines("/admit patient_1 anaphylaxis", "/wait 600s", "check his GCS, check vitals"))
	said := monitorSaid(events)
	exam := examGCS.FindStringSubmatch(said)
	obs := numbersSaid(said[strings.Index(said, "Measured at"):])["gcs"]
	if exam == nil || obs == 0 {
		t.Fatalf("no GCS in the exam or the observations: %s", said)
	}
	if sum := int(exam[1][0]-'0') + int(exam[2][0]-'0') + int(exam[3][0]-'0'); sum != obs {
		t.Errorf("the exam finds GCS %d (%s), the observations %d", sum, exam[0], obs)
	}
}

// The examination finds the access the engine has: none before a cannula is sited, one after;
// and an arrest's refused IV order offers no IM route.
func TestRunAccessIsFoundAsTheEngineHasIt(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	turns := byTurn(runJSON(t, r.s, lines("/admit patient_1 arrest-vf-ward", "/wait 40s", "examine him",
		"adrenaline 1 mg IV", "IV access", "/wait 70s", "examine him")))
	if said := monitorSaid(turns[2]); !strings.Contains(said, "no cannula") {
		t.Errorf("before any access the exam finds: %s", said)
	}
	if said := monitorSaid(turns[3]); !strings.Contains(said, "no IV access") || strings.Contains(said, "IM") {
		t.Errorf("adrenaline IV in an arrest without access: %s", said)
	}
	if said := monitorSaid(turns[6]); !strings.Contains(said, "cannula in situ") {
		t.Errorf("after a cannula the exam finds: %s", said)
	}
}

// The order is checked as a prescriber's is: the drug first, then its safety, the dose, and the
// route last. A route refused never offers another route for a drug that harms this patient; a
// dose with no drug gets a question; a guess at an unknown name is never a harmful drug.
func TestRunOrdersAreCheckedDrugFirstRouteLast(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	turns := byTurn(runJSON(t, r.s, lines("/admit patient_1 fracture-morphine-allergy", "give morphine 5 mg IV",
		"give 2 mg", "/admit patient_2 opioid-overdose", "give zorbazine 5 mg IV")))
	if said := monitorSaid(turns[1]) + pharmacistSaid(turns[1]); strings.Contains(said, "IM") || strings.Contains(said, "instead") {
		t.Errorf("an IV order of her allergen without a line: %s", said)
	}
	if said := pharmacistSaid(turns[2]); !strings.Contains(said, "which drug") {
		t.Errorf("'give 2 mg': %q, want the Pharmacist to ask which drug", said)
	}
	if said := pharmacistSaid(turns[4]); strings.Contains(said, "morphine") || !strings.Contains(said, "not in the formulary") {
		t.Errorf("an unknown name in an opioid overdose: %q", said)
	}
}

func pharmacistSaid(events []jsonEvent) string {
	var b strings.Builder
	for _, m := range ofKind(events, "message") {
		if m.str("agent") == "Pharmacist" {
			b.WriteString(m.str("text") + "\n")
		}
	}
	return b.String()
}

// "check the trachea" is answered, and in the tension pneumothorax finds it shifted.
func TestRunTheTracheaIsExamined(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	events := runJSON(t, r.s, lines("/admit patient_1 arrest-pea-tension", "check the trachea"))
	if said := monitorSaid(events); !strings.Contains(said, "trachea deviated") {
		t.Errorf("check the trachea: %s", said)
	}
}

// A trainee's `ward run` names no state of the case and no rhythm on the monitor; the
// instructor's names both.
func TestRunATraineesRunNamesNoStateNorRhythm(t *testing.T) {
	in := lines("/admit patient_1 arrest-vf-ward", "attach the monitor", "/wait 60s")
	for _, instructor := range []bool{false, true} {
		r := newRigWith(t, func(c *Config) { c.Seed, c.Instructor = 42, instructor })
		events := runJSON(t, r.s, in)
		states, rhythms := len(ofKind(events, "state")), 0
		for _, e := range ofKind(events, "vitals") {
			if e.str("rhythm") != "" {
				rhythms++
			}
		}
		if instructor != (states > 0) || instructor != (rhythms > 0) {
			t.Errorf("instructor %v: %d state events, %d readings naming the rhythm", instructor, states, rhythms)
		}
	}
}

// Chest compressions on a patient with a pulse are a critical error; resumed at once after the
// shock that restarted the heart, as the algorithm has it, they are not.
func TestRunCPROnAPatientWithAPulseIsACriticalError(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	events := runJSON(t, r.s, lines("/admit patient_1 sepsis-urosepsis", "start CPR"))
	if errs := ofKind(events, "critical_error"); len(errs) != 1 || errs[0].str("id") != "cpr-with-pulse" {
		t.Errorf("CPR on a talking patient: critical errors %v", errs)
	}
	events, _ = arrestRun(t, "arrest-vf-ward", vfWell[:9]...)
	for _, e := range ofKind(events, "critical_error") {
		if e.str("id") == "cpr-with-pulse" {
			t.Errorf("CPR resumed after the shock that restarted the heart was judged an error: %v", e)
		}
	}
}

// A needle decompression of the side without the tension pneumothorax is a critical error and
// treats nothing; of the right side it treats the cause.
func TestRunWrongSideDecompressionIsACriticalError(t *testing.T) {
	for _, side := range []string{"left", "right"} {
		events, aar := arrestRun(t, "arrest-pea-tension", "00:50 he's in cardiac arrest, crash call, start CPR",
			"01:10 needle decompression on the "+side)
		var wrong []jsonEvent
		for _, e := range ofKind(events, "critical_error") {
			if e.str("id") == "wrong-side-procedure" {
				wrong = append(wrong, e)
			}
		}
		arrest, _ := aar["arrest"].(map[string]any)
		causes, _ := arrest["causes"].(string)
		treated := strings.Contains(causes, "was treated")
		if side == "left" && (len(wrong) != 1 || treated) {
			t.Errorf("left-sided decompression of a right tension: errors %v, cause treated %v", wrong, treated)
		}
		if side == "right" && (len(wrong) != 0 || !treated) {
			t.Errorf("right-sided decompression: errors %v, cause treated %v", wrong, treated)
		}
	}
}

// What treatment did is found: after IM morphine the allergic patient's chest wheezes and her
// skin has hives, as the engine has them.
func TestRunADrugReactionIsFoundOnExamination(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	turns := byTurn(runJSON(t, r.s, lines("/admit patient_1 fracture-morphine-allergy", "give morphine 10 mg IM",
		"/wait 5m", "listen to the chest, look at the skin")))
	said := monitorSaid(turns[3])
	if !strings.Contains(said, "wheeze") || !strings.Contains(said, "hives") || strings.Contains(said, "clear, with equal air entry") {
		t.Errorf("after her allergen the exam finds: %s", said)
	}
}

// A change of state the instructor injects is found at the very next examination.
func TestRunAnInjectedChangeShowsInTheNextExamination(t *testing.T) {
	r := injectRig(t)
	if _, err := r.inject(Injection{Kind: InjectDeterioration, PatientID: "patient_1", State: "peri-arrest"}); err != nil {
		t.Fatal(err)
	}
	events := runJSON(t, r.s, lines("listen to the chest"))
	if said := monitorSaid(events); !strings.Contains(said, "silent chest") {
		t.Errorf("just after the injected peri-arrest the chest: %s", said)
	}
}

// A patient asked the same question again notices: "I told you — …", with the same answer.
func TestRunThePatientNoticesARepeatedQuestion(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 3 })
	turns := byTurn(runJSON(t, r.s, lines("/admit patient_1 sepsis-urosepsis", "what medications do you take?",
		"/wait 11m", "what medications do you take?")))
	first, again := strings.Join(saidBy(turns[1], "Patient"), ""), strings.Join(saidBy(turns[3], "Patient"), "")
	if strings.HasPrefix(first, "I told you") || !strings.HasPrefix(again, "I told you — ") {
		t.Errorf("asked once: %q; asked again: %q", first, again)
	}
}

// capillaryGlucose is every glucose the Monitor read out, in order.
var capillaryGlucose = regexp.MustCompile(`Capillary glucose: ([\d.]+) mmol/L`)

func glucoseReadings(events []jsonEvent) []float64 {
	var out []float64
	for _, m := range capillaryGlucose.FindAllStringSubmatch(monitorSaid(events), -1) {
		g, _ := strconv.ParseFloat(m[1], 64)
		out = append(out, g)
	}
	return out
}

// After IV glucose and nothing to eat the glucose falls again as the insulin goes on acting
// (JBDS hypoglycaemia 2023: long-acting carbohydrate must follow); a sandwich once he is awake
// holds it up.
func TestRunHypoglycaemiaRecursWithoutLongActingCarbohydrate(t *testing.T) {
	for _, fed := range []bool{false, true} {
		food := "/wait 1s"
		if fed {
			food = "give him a sandwich"
		}
		r := newRigWith(t, func(c *Config) { c.Seed = 42 })
		events := runJSON(t, r.s, lines("/admit patient_1 hypoglycaemia", "check his glucose", "IV access", "/wait 1m",
			"give glucose 10% 150 mL IV", "/wait 15m", "check his glucose", food, "/wait 30m", "check his glucose",
			"/wait 15m", "check his glucose"))
		g := glucoseReadings(events)
		if len(g) != 4 || g[0] > 3 || g[1] < 4 {
			t.Fatalf("fed %v: glucose %v, want low, then above 4 after IV glucose", fed, g)
		}
		if !fed && (g[2] >= 4 || g[3] >= g[2]) {
			t.Errorf("no food after IV glucose: glucose %v, want it falling below 4 again and on", g)
		}
		if fed && (g[2] < 5 || g[3] < 5) {
			t.Errorf("a sandwich after IV glucose: glucose %v, want it held above 5", g)
		}
	}
}

// Amiodarone's 300 mg bolus is the arrest's: after ROSC, in a perfusing patient, the Pharmacist
// stops it for the situation; run in over 20 minutes it is given, and the review lists it.
func TestRunAmiodaroneBolusWithAPulseIsStopped(t *testing.T) {
	events, aar := arrestRun(t, "arrest-vf-ward", append(vfWell[:10:10],
		"05:00 amiodarone 300 mg IV", "05:30 amiodarone 300 mg IV over 20 minutes")...)
	orders := ofKind(events, "order")
	var amiodarone []jsonEvent
	for _, o := range orders {
		if o.str("drug") == "amiodarone" {
			amiodarone = append(amiodarone, o)
		}
	}
	if len(amiodarone) != 2 {
		t.Fatalf("amiodarone orders %v", amiodarone)
	}
	bolus, infusion := amiodarone[0], amiodarone[1]
	if bolus["given"] != false || bolus.str("rule") != "situation" || !strings.Contains(bolus.str("say"), "cardiac arrest only") {
		t.Errorf("a 300 mg bolus after ROSC: %v", bolus)
	}
	if infusion["given"] != true || infusion.str("verdict") != "ok" {
		t.Errorf("300 mg over 20 minutes after ROSC: %v", infusion)
	}
	arrest, _ := aar["arrest"].(map[string]any)
	drugs, _ := arrest["drugs"].([]any)
	listed := false
	for _, d := range drugs {
		d, _ := d.(map[string]any)
		listed = listed || strings.HasPrefix(d["drug"].(string), "amiodarone") && d["verdict"] == "after ROSC"
	}
	if !listed {
		t.Errorf("the review's drugs %v, want the amiodarone infusion after ROSC", drugs)
	}
}

// A chest drain, like a needle decompression, is judged by its side: on the healthy right chest
// of a left tension pneumothorax it is a critical error and treats nothing; on the left it
// decompresses him. A splint on the sound leg is the same error.
func TestRunWrongSideChestDrainIsACriticalError(t *testing.T) {
	for _, side := range []string{"right", "left"} {
		r := newRigWith(t, func(c *Config) { c.Seed, c.Instructor = 42, true })
		events := runJSON(t, r.s, lines("/admit patient_1 traumatic-tension-pneumothorax",
			"insert a chest drain on the "+side, "/wait 2m", "listen to the chest"))
		wrong := 0
		for _, e := range ofKind(events, "critical_error") {
			if e.str("id") == "wrong-side-procedure" {
				wrong++
			}
		}
		decompressed := false
		for _, e := range ofKind(events, "state") {
			decompressed = decompressed || e.str("to") == "decompressed"
		}
		if side == "right" && (wrong != 1 || decompressed) {
			t.Errorf("a right chest drain for a left tension: %d wrong-side errors, decompressed %v", wrong, decompressed)
		}
		if side == "left" && (wrong != 0 || !decompressed) {
			t.Errorf("a left chest drain: %d wrong-side errors, decompressed %v", wrong, decompressed)
		}
	}
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	events := runJSON(t, r.s, lines("/admit patient_1 fracture-morphine-allergy", "splint the left leg", "splint the right leg"))
	if errs := ofKind(events, "critical_error"); len(errs) != 1 || errs[0].str("id") != "wrong-side-procedure" {
		t.Errorf("a splint on her sound left leg, then her broken right: critical errors %v", errs)
	}
}

// A limb is examined on its side, from the engine: her broken right shin is found on the right,
// and the sound left leg (or the right arm) finds the limb the case says is normal; a tourniquet
// on the sound leg is a critical error that stops nothing, as a splint there is; and the DVT of a
// PE is in its left calf, whose case has no one-sided chest for a drain to be "wrong" on.
func TestRunLimbsAreExaminedAndTreatedOnTheirSide(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	said := monitorSaid(runJSON(t, r.s, lines("/admit patient_1 fracture-morphine-allergy",
		"examine her right leg", "examine her left leg", "look at her right arm")))
	for _, want := range []string{"Right leg (neurovascular): right shin deformed mid-shaft",
		"Left leg (neurovascular): normal: no deformity", "Right arm (neurovascular): normal: no deformity"} {
		if !strings.Contains(strings.ToLower(said), strings.ToLower(want)) {
			t.Errorf("the examinations lack %q:\n%s", want, said)
		}
	}
	if strings.Count(said, "deformed mid-shaft") != 1 {
		t.Errorf("the fracture found on more than the right leg:\n%s", said)
	}

	r = newRigWith(t, func(c *Config) { c.Seed, c.Instructor = 42, true })
	events := runJSON(t, r.s, lines("/admit patient_1 major-haemorrhage-prehospital",
		"apply a tourniquet to the left thigh", "/wait 30s", "apply a tourniquet to the right thigh"))
	var errs []string
	for _, e := range ofKind(events, "critical_error") {
		errs = append(errs, e.str("id"))
	}
	var controlled float64 = -1
	for _, e := range ofKind(events, "state") {
		if e.str("to") == "controlled" && controlled < 0 {
			controlled = e.num("t")
		}
	}
	if len(errs) != 1 || errs[0] != "wrong-side-procedure" || controlled < 30 {
		t.Errorf("a tourniquet on his sound left thigh, then the bleeding right: errors %v, controlled at %g", errs, controlled)
	}

	r = newRigWith(t, func(c *Config) { c.Seed = 42 })
	events = runJSON(t, r.s, lines("/admit patient_1 pulmonary-embolism", "examine the right leg", "examine the left leg",
		"insert a chest drain on the right"))
	said = monitorSaid(events)
	if !strings.Contains(said, "ight leg (neurovascular): normal: soft, not swollen") || !strings.Contains(said, "Left calf swollen") {
		t.Errorf("the PE's legs:\n%s", said)
	}
	for _, e := range ofKind(events, "critical_error") {
		if e.str("id") == "wrong-side-procedure" {
			t.Errorf("a chest drain in a PE judged by the leg's side: %q", e.str("text"))
		}
	}
}

// Found by random play: once the SVT reverts to sinus (here by an injection), the examination
// reads the pulse and the monitor as a bedside examiner would, and names no rhythm.
func TestExaminationAfterRevertingNamesNoRhythm(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 svt")
	if _, err := r.inject(Injection{Kind: InjectDeterioration, PatientID: "patient_1", State: "sinus"}); err != nil {
		t.Fatal(err)
	}
	r.turn("/wait 5s")
	for _, m := range only[MessageEvent](r.turn("examine him")) {
		if strings.Contains(strings.ToLower(m.Text), "sinus rhythm") {
			t.Errorf("%s named the rhythm: %q", m.Agent, m.Text)
		}
	}
}

// A nurse who has seen the trainee at the bedside does not say she is still waiting for their
// review: once the trainee has come to the patient, a call not yet acknowledged asks for the plan,
// and says when they came. Found in a `ward run` of anaphylaxis after one IM dose, where the calls
// went on saying "Still waiting for a review" after the trainee had checked and examined.
func TestACallAfterTheReviewAsksForThePlan(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 5 })
	events := runJSON(t, r.s, lines("/admit patient_1 anaphylaxis", "check vitals", "give adrenaline 500 micrograms IM",
		"/wait 5m", "check vitals", "/wait 10m"))
	saidAsReadAt(t, events)
	var before, after int
	for _, e := range ofKind(events, "escalation") {
		text := e.str("text")
		switch {
		case e.num("t") < 300 && e.num("repeats") > 0:
			before++
			if !strings.HasPrefix(text, "Still waiting for a review (first called at T+") {
				t.Errorf("a repeat before the review says %q", text)
			}
		case e.num("t") > 300:
			after++
			if !strings.HasPrefix(text, "Still unwell after your review at T+05:00 (first called at T+") || !strings.HasSuffix(text, "What is the plan?") {
				t.Errorf("a repeat after the review at T+05:00 says %q", text)
			}
		}
	}
	if before == 0 || after == 0 {
		t.Fatalf("%d repeats before the review and %d after; the case no longer calls on both sides of it", before, after)
	}
}

// A rhythm check is what it found when it was done. Checked in VF and shocked in the same line
// (or the same second), the Monitor said "pulse present — not an arrest", and the review's
// timeline kept it so beside the shock, since both were read back from the time and the return
// of circulation came in that second.
func TestARhythmCheckBeforeTheShockFoundNoPulse(t *testing.T) {
	for _, shock := range [][]string{
		{"stop compressions, rhythm check, VF, shock 150 J, resume CPR"},
		{"stop compressions, rhythm check", "this is VF, stand clear, shock 150 J, resume CPR"},
	} {
		r := newRigWith(t, func(c *Config) { c.Seed = 42 })
		script := append([]string{"/admit patient_1 arrest-vf-ward", "check vitals", "/wait 35s", "crash call, start CPR", "/wait 15s", "pads on"}, shock...)
		events := runJSON(t, r.s, lines(append(script, "/wait 2m", "rhythm check")...))
		var said []string
		for _, m := range ofKind(events, "message") {
			if text := m.str("text"); strings.HasPrefix(text, "Rhythm check: ") {
				said = append(said, text)
			}
		}
		want := []string{"Rhythm check: hands off; the rhythm is on the monitor for the team leader to read.", "Rhythm check: pulse present — not an arrest."}
		if !slices.Equal(said, want) {
			t.Errorf("%q: the Monitor said %q, want %q", shock, said, want)
		}
		var recorded []string
		for _, res := range r.engine("patient_1").Results() {
			if res.Name == "rhythm check" {
				recorded = append(recorded, "Rhythm check: "+res.Value+".")
			}
		}
		if !slices.Equal(recorded, want) {
			t.Errorf("%q: the record keeps %q, want what was said, %q", shock, recorded, want)
		}
	}
}

// A bolus ordered by weight is given by weight: "10 mL/kg" in a 14 kg child is 140 mL, said and
// recorded so, and it is the bolus the case asks for. It was read as 10 mL (the "/kg" dropped),
// the nurse said "Fluids running: 10 mL" and the review still credited the 140 mL bolus; a bolus
// of a few mL now moves nothing and is credited with nothing.
func TestABolusByWeightIsGivenByWeight(t *testing.T) {
	for _, c := range []struct {
		line, said string
		volume     float64
		credited   bool
	}{
		{"give 10 ml/kg sodium chloride 0.9% IV bolus", "Fluids up: 140 mL (10 mL/kg), to run once access is in (about 30 s).", 140, true},
		{"give a 10 ml bolus of 0.9% saline", "Fluids up: 10 mL, to run once access is in (about 30 s).", 10, false},
	} {
		r := newRigWith(t, func(c *Config) { c.Seed = 11 })
		events := runJSON(t, r.s, lines("/admit patient_1 paediatric-sepsis", "IO access", c.line))
		if said := saidBy(events, "Nurse"); !slices.Contains(said, c.said) {
			t.Errorf("%q: the nurse said %q, want %q", c.line, said, c.said)
		}
		e := r.engine("patient_1")
		var given float64
		for _, a := range e.Actions() {
			if a.Kind == "fluids" {
				given = a.VolumeML
			}
		}
		if given != c.volume {
			t.Errorf("%q: %g mL recorded, want %g", c.line, given, c.volume)
		}
		met := false
		for _, o := range aar.Of(e).CriticalActions {
			if strings.HasPrefix(o.Description, "A 10 mL/kg fluid bolus") {
				met = o.Met
			}
		}
		if met != c.credited {
			t.Errorf("%q: the 10 mL/kg bolus is met %v, want %v", c.line, met, c.credited)
		}
	}
}

// Every dose and volume per kg is worked out from the case's weight, so asking for the weight gets
// that weight, in every case of the library. It went unanswered before: the question reached the
// Orchestrator's plan or a card written for another child's weight.
func TestTheWeightAskedForIsTheOneDosesUse(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range lib.List() {
		r := newRig(t)
		events := runJSON(t, r.s, lines("/admit patient_1 "+c.ID, "what's the patient's weight?"))
		want := fmt.Sprintf("Weight: %g kg.", c.Demographics.WeightKg)
		if said := saidBy(events, agents.AgentMonitor); !slices.Contains(said, want) {
			t.Errorf("%s: the Monitor said %q, want %q", c.ID, said, want)
		}
	}
}

// A drug ordered while its cannula is still being sited is drawn up and goes in once access is
// in, as the engine has it (its effect waits for the access): the nurse no longer says "Given"
// for a drug that cannot have gone in yet.
func TestADrugOrderedBeforeItsAccessIsInIsDrawnUp(t *testing.T) {
	r := newRig(t)
	events := runJSON(t, r.s, lines("/admit patient_1 sepsis-urosepsis", "IV access", "give co-amoxiclav 1.2 g IV", "/wait 2m",
		"give paracetamol 1 g IV"))
	said := saidBy(events, nurseAgent)
	for _, want := range []string{"Drawn up: co-amoxiclav 1.2 g IV, to go in once access is in (about 60 s).", "Given: paracetamol 1 g IV."} {
		if !slices.Contains(said, want) {
			t.Errorf("the nurse said %q, want %q", said, want)
		}
	}
	e := r.engine("patient_1")
	var access, antibiotic float64
	for _, a := range e.Actions() {
		switch {
		case a.Kind == "iv_access":
			access = a.AccessIn
		case a.Drug == "co-amoxiclav":
			antibiotic = a.InAt
		}
	}
	if access == 0 || antibiotic != access {
		t.Errorf("co-amoxiclav recorded going in at %g, want when the access is in (%g)", antibiotic, access)
	}
}

// The nurse who called an arrest does not call the trainee running it to come: once they are at
// the patient her repeats say the arrest goes on, not "please come now".
func TestAnArrestCallRepeatedAtTheArrestCallsNobody(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 16 })
	events := runJSON(t, r.s, lines("/admit patient_1 paediatric-arrest", "/wait 20s", "she's in cardiac arrest, crash call, start CPR 15 to 2",
		"/wait 4m"))
	saidAsReadAt(t, events)
	var repeats int
	for _, e := range ofKind(events, "escalation") {
		if e.num("repeats") == 0 {
			continue
		}
		repeats++
		if text := e.str("text"); text != "Still no pulse and not breathing (arrest first called at T+00:01)." {
			t.Errorf("a repeat at %g with the trainee at the arrest says %q", e.num("t"), text)
		}
	}
	if repeats == 0 {
		t.Fatal("no repeat of the arrest call in four minutes: the repro needs one")
	}
}

// A call repeated after the score has settled below any call (NEWS2 under 5, no single 3) asks
// for no review: she says the patient has settled since she called and asks for the call to be
// acknowledged. Found in a busy shift, where a hypoglycaemic man given glucose was at NEWS2 1 and
// the nurse still said "Still waiting for a review … Urgent review please."
func TestASettledPatientsCallAsksForNoReview(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 3 })
	events := runJSON(t, r.s, lines("/admit patient_1 hypoglycaemia", "check a BM", "IV access and give 150 ml glucose 10% IV",
		"/wait 5m", "/wait 5m"))
	saidAsReadAt(t, events)
	var settled int
	for _, e := range ofKind(events, "escalation") {
		if e.num("repeats") == 0 {
			continue
		}
		text := e.str("text")
		if strings.Contains(text, "review please") || strings.Contains(text, "come now") || strings.Contains(text, "waiting for a review") {
			t.Errorf("a repeat at %g asks for a review: %q", e.num("t"), text)
		}
		if strings.HasPrefix(text, "Settled since the call at T+") && strings.HasSuffix(text, "Please acknowledge the call.") {
			settled++
		}
	}
	if settled == 0 {
		t.Fatal("no repeat after the glucose settled him: the repro needs one")
	}
}
