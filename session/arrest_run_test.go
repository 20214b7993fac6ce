package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
)

// arrestRun plays a script through `ward run` (the offline backend, seed 42) in the instructor's
// view, which shows the engine's states: each step is a /wait to its time and the trainee's
// line, then /aar. It returns every event and the review.
func arrestRun(t *testing.T, scenario string, script ...string) ([]jsonEvent, jsonEvent) {
	t.Helper()
	r := newRigWith(t, func(c *Config) { c.Seed, c.Instructor = 42, true })
	in := []string{"/admit patient_1 " + scenario}
	clock := 0
	for _, s := range script {
		var mm, ss int
		at, say, _ := strings.Cut(s, " ")
		if _, err := fmt.Sscanf(at, "%d:%d", &mm, &ss); err != nil {
			t.Fatalf("step %q: %v", s, err)
		}
		if d := mm*60 + ss - clock; d > 0 {
			in = append(in, fmt.Sprintf("/wait %ds", d))
		}
		clock = mm*60 + ss
		in = append(in, say)
	}
	events := runJSON(t, r.s, lines(append(in, "/aar")...))
	aar := ofKind(events, "aar")
	if len(aar) != 1 {
		t.Fatalf("%d reviews", len(aar))
	}
	return events, aar[0]
}

// The paths `ward run` tests: an arrest run well, late and wrong, shockable (VF on the ward) and
// not (PEA from a tension pneumothorax). Under seed 42 each plays the same course every time;
// the tests assert it cycle by cycle, with the score and the debrief.
var (
	vfWell = []string{"00:05 attach the monitor", "00:35 he's in cardiac arrest, crash call, start CPR",
		"00:50 pads on, charge to 150 J", "01:00 stop compressions, rhythm check",
		"01:03 this is VF, stand clear, shock 150 J, resume CPR", "01:30 IV access, consider the 4 Hs and 4 Ts",
		"02:50 charge to 200 J", "03:00 stop compressions, rhythm check", "03:03 shock 200 J, resume CPR",
		"04:00 stop compressions, pulse check", "04:10 check vitals, examine him",
		"04:30 12-lead ECG, oxygen 15 L via non-rebreather, aim for a MAP above 65, temperature control, refer to the cath lab",
		"10:00 check vitals", "10:30 /diagnosis VF arrest", "10:40 /dispo cath-lab"}
	vfLate = []string{"02:30 start CPR", "03:30 crash call", "05:00 pads on", "05:30 stop CPR, rhythm check",
		"05:35 VF, shock 150 J, resume CPR", "07:35 stop CPR, rhythm check", "07:38 shock 200 J, resume CPR",
		"09:38 stop CPR, rhythm check", "09:41 shock 200 J, resume CPR", "10:00 IV access",
		"13:00 adrenaline 1 mg IV, amiodarone 300 mg IV", "13:38 stop CPR, rhythm check", "13:41 shock 200 J, resume CPR",
		"15:41 stop CPR, pulse check"}
	vfWrong = []string{"00:40 start CPR", "01:00 pads on", "01:10 stop CPR, rhythm check",
		"01:15 it's asystole, IV access, adrenaline 1 mg IV", "01:30 resume CPR", "03:10 stop CPR, rhythm check",
		"03:15 shock 150 J", "04:00 shock 150 J", "05:00 check vitals"}
	peaWell = []string{"00:50 he's in cardiac arrest, crash call, start CPR", "01:00 pads on",
		"01:10 stop compressions, rhythm check", "01:14 this is PEA, no shock, resume CPR",
		"01:30 IO access and give adrenaline 1 mg IO", "01:40 consider the 4 Hs and 4 Ts, examine his chest",
		"02:00 needle decompression on the right", "03:10 stop compressions, rhythm check and pulse check",
		"03:15 resume CPR", "05:10 stop compressions, rhythm check and pulse check", "05:15 resume CPR, adrenaline 1 mg IO",
		"07:10 stop compressions, rhythm check and pulse check", "07:30 check vitals, examine him",
		"08:00 12-lead ECG, oxygen 15 L via non-rebreather, aim for a MAP above 65, temperature control",
		"09:00 chest x-ray and refer to ICU", "09:30 /diagnosis tension pneumothorax", "09:40 /dispo icu"}
	peaLate = []string{"02:00 start CPR", "03:00 crash call, pads on", "03:30 stop CPR, rhythm check",
		"03:35 PEA, resume CPR", "04:00 IV access", "09:00 consider the 4 Hs and 4 Ts", "09:30 adrenaline 1 mg IV",
		"12:00 needle decompression", "13:00 stop CPR, pulse check", "13:05 resume CPR", "15:00 stop CPR, pulse check",
		"15:05 resume CPR", "17:00 stop CPR, pulse check"}
	peaWrong = []string{"01:30 start CPR", "02:30 pads on", "02:40 stop CPR, rhythm check", "02:45 it's VT, shock 150 J",
		"02:50 resume CPR", "05:00 IV access, amiodarone 300 mg IV", "07:00 stop CPR, pulse check", "07:05 resume CPR",
		"10:00 stop CPR, pulse check"}
)

// runCourse is what the run did: each state change and critical error, as "t state" and "t !id".
func runCourse(events []jsonEvent) []string {
	var out []string
	for _, e := range events {
		switch e.kind() {
		case "state":
			out = append(out, fmt.Sprintf("%g %s", e.num("t"), e.str("to")))
		case "critical_error":
			out = append(out, fmt.Sprintf("%g !%s", e.num("t"), e.str("id")))
		}
	}
	return out
}

// cycles are the review's cycles, each as its rhythm at the start and what was done in it.
func cycles(aar jsonEvent) []string {
	var out []string
	arrest, _ := aar["arrest"].(map[string]any)
	list, _ := arrest["cycles"].([]any)
	for _, c := range list {
		c := c.(map[string]any)
		var events []string
		for _, e := range c["events"].([]any) {
			events = append(events, e.(string))
		}
		out = append(out, fmt.Sprintf("%v: %s", c["rhythm"], strings.Join(events, "; ")))
	}
	return out
}

func reviewScore(aar jsonEvent) int { return int(aar["score"].(map[string]any)["total"].(float64)) }

func debrief(aar jsonEvent) string {
	var b strings.Builder
	for _, p := range aar["debrief"].([]any) {
		b.WriteString(p.(map[string]any)["text"].(string) + "\n")
	}
	return b.String()
}

// The team's facts carry the arrest as the engine has it, and never its rhythm.
func TestArrestFactsForTheTeam(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	runJSON(t, r.s, lines("/admit patient_1 arrest-pea-tension", "/wait 50s", "crash call, start CPR",
		"/wait 20s", "stop compressions, rhythm check", "PEA, resume CPR, IO access, adrenaline 1 mg IO"))
	f := arrestFacts(r.engine("patient_1"))
	want := agents.ArrestFacts{Since: "00:25", Compressions: "going", SinceCheck: "00:00", Shocks: 0,
		Adrenaline: "1 drawn up, to go in once access is in", Access: true, Pulse: "none"} // the IO goes in with it
	if f == nil || *f != want {
		t.Fatalf("arrest facts %+v, want %+v", f, want)
	}
	j, _ := json.Marshal(f)
	if strings.Contains(strings.ToLower(string(j)), "pea") {
		t.Errorf("the facts name the rhythm: %s", j)
	}
	runJSON(t, r.s, lines("/wait 40s")) // the IO is in after 30 s, and the adrenaline with it
	if f := arrestFacts(r.engine("patient_1")); f == nil || f.Adrenaline != "1 given, the last 00:10 ago" {
		t.Errorf("forty seconds on, the facts say adrenaline %+v, want it given ten seconds ago", f)
	}
}
