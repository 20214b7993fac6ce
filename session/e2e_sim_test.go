package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/scenario"
)

// End to end and headless: the asthma patient, through `ward run`'s own output.
func TestAsthmaHeadless(t *testing.T) {
	r := newRig(t)
	turns := byTurn(runJSON(t, r.s, lines(
		"/admit patient_1 asthma-exacerbation",
		"/vitals",
		"applying oxygen via non-rebreather at 15 L/min",
		"/wait 3m",
		"/vitals",
		"/aar",
	)))
	if len(turns) != 6 {
		t.Fatalf("%d turns, want 6", len(turns))
	}

	base := onlyOne(t, ofKind(turns[1], "vitals"), "baseline vitals")
	want := map[string]float64{"t": 0, "hr": 128, "rr": 32, "spo2": 88, "sbp": 138, "dbp": 86, "gcs": 15, "news2": 8}
	for k, v := range want {
		if base.num(k) != v {
			t.Errorf("baseline %s = %v, want %v (the reference asthma patient)", k, base[k], v)
		}
	}
	if base["on_oxygen"] != false {
		t.Errorf("baseline on_oxygen = %v, want false (on air)", base["on_oxygen"])
	}
	if sum := partsSum(t, base); sum != 8 {
		t.Errorf("baseline news2_parts add up to %g, want the total 8", sum)
	}

	oxygen := onlyOne(t, ofKind(turns[2], "action"), "oxygen action")
	if oxygen.str("action") != "oxygen" || oxygen.str("device") != "nrb" || oxygen.num("flow_l_min") != 15 || oxygen.num("t") != 0 {
		t.Errorf("oxygen action = %v, want oxygen by nrb at 15 L/min at t=0", oxygen)
	}

	after := onlyOne(t, ofKind(turns[4], "vitals"), "vitals after oxygen")
	if after.num("t") != 180 || after["on_oxygen"] != true {
		t.Errorf("second reading at t=%v on_oxygen=%v, want t=180 on oxygen", after["t"], after["on_oxygen"])
	}
	if after.num("spo2") <= base.num("spo2") {
		t.Errorf("SpO2 %v after 3 sim minutes of oxygen, want above the baseline %v", after["spo2"], base["spo2"])
	}

	rep := aarOf(t, onlyOne(t, ofKind(turns[5], "aar"), "aar event"))
	for _, w := range []struct {
		elapsed float64
		text    string
	}{{0, "check vitals"}, {0, "oxygen"}, {180, "check vitals"}} {
		if !slices.ContainsFunc(rep.Timeline, func(e aar.TimelineEntry) bool {
			return e.Kind == "action" && e.Elapsed == w.elapsed && strings.Contains(e.Text, w.text)
		}) {
			t.Errorf("AAR timeline has no %q action at %gs: %+v", w.text, w.elapsed, rep.Timeline)
		}
	}
	for _, id := range []string{"vitals", "oxygen"} {
		i := slices.IndexFunc(rep.CriticalActions, func(c aar.CriticalOutcome) bool { return c.ID == id })
		if i < 0 || !rep.CriticalActions[i].Met || rep.CriticalActions[i].At == nil || *rep.CriticalActions[i].At != 0 {
			t.Errorf("critical action %s: %+v, want met at 0 s", id, rep.CriticalActions)
		}
	}

	sim := dumpJSON(t, r)["sim"].(map[string]any)["patient_1"].(map[string]any)
	for _, k := range []string{"scenario", "state", "t", "true_vitals", "news2", "actions", "critical_errors"} {
		if _, ok := sim[k]; !ok {
			t.Errorf("dump sim.patient_1 has no %q: %v", k, sim)
		}
	}
	if sim["scenario"] != "asthma-exacerbation" || sim["t"] != 180.0 {
		t.Errorf("dump sim.patient_1 scenario %v at t=%v, want asthma-exacerbation at 180", sim["scenario"], sim["t"])
	}
	if tv, _ := sim["true_vitals"].(map[string]any); tv["spo2"] == nil {
		t.Errorf("dump true_vitals = %v, want the engine's numbers", sim["true_vitals"])
	}
	if acts, _ := sim["actions"].([]any); len(acts) != 3 {
		t.Errorf("dump actions = %v, want check_vitals, oxygen, check_vitals", sim["actions"])
	}
	if errs, ok := sim["critical_errors"].([]any); !ok || len(errs) != 0 {
		t.Errorf("dump critical_errors = %#v, want an empty list", sim["critical_errors"])
	}
}

// Oxygen, not time alone, is what lifts the asthma patient's SpO2 in 3 sim minutes.
func TestOxygenRaisesSpO2WithinThreeMinutes(t *testing.T) {
	tests := []struct {
		name, said string
		raises     bool
	}{
		{"oxygen", "applying oxygen via non-rebreather at 15 L/min", true},
		{"no treatment", "I'm right here with you", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.turn("/admit patient_1 asthma-exacerbation")
			before := onlyOne(t, simOf(r.turn("/vitals"), physio.EventVitals), "vitals").Reading
			r.turn(tt.said)
			r.turn("/wait 3m")
			after := onlyOne(t, simOf(r.turn("/vitals"), physio.EventVitals), "vitals").Reading
			if raised := after.SpO2-before.SpO2 >= 3; raised != tt.raises {
				t.Errorf("SpO2 %d → %d, raised=%v, want %v", before.SpO2, after.SpO2, raised, tt.raises)
			}
		})
	}
}

// The anaphylaxis patient is also allergic to penicillin. An order for any penicillin is checked
// by drug class: once the allergy is known, the Pharmacist stops it and nothing is given (a near
// miss); when nobody asked, the drug is given, the reaction plays out and it is a critical error.
func TestPenicillinAllergyStopsEveryPenicillinOnceKnown(t *testing.T) {
	r := newRig(t)
	sc, ok := r.s.cfg.Scenarios.Get("anaphylaxis")
	if !ok || !slices.ContainsFunc(sc.Allergies, func(a scenario.Allergy) bool { return a.DrugClass == "penicillin" }) {
		t.Fatalf("the anaphylaxis scenario should carry a penicillin allergy: %+v", sc)
	}
	tests := []struct {
		order, drug string
		askFirst    bool
		hardStop    bool
	}{
		{"give ampicillin 500 mg IV", "ampicillin", false, true},
		{"give amoxicillin 500 mg PO", "amoxicillin", false, true},
		{"give ampicillin 500 mg IV", "ampicillin", true, true},
		{"give amoxicillin 500 mg PO", "amoxicillin", true, true},
		{"give epinephrine 0.5 mg IM", "epinephrine", false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s asked=%v", tt.drug, tt.askFirst), func(t *testing.T) {
			r := newRig(t)
			r.turn("/admit patient_2 anaphylaxis")
			r.turn("IV access")
			r.turn("/wait 1m")
			if tt.askFirst {
				r.turn("any allergies?")
			}
			events := r.turn(tt.order)
			safety := simOf(events, physio.EventSafety)
			errs := simOf(events, physio.EventCriticalError)
			order := onlyOne(t, simOf(events, physio.EventOrder), "order event").Order
			rep := onlyOne(t, only[AAREvent](r.turn("/aar")), "aar event")
			if !tt.hardStop {
				if len(safety)+len(errs)+len(rep.CriticalErrors) != 0 || !order.Given {
					t.Errorf("a safe order raised %v %v %v, or was not given", safety, errs, rep.CriticalErrors)
				}
				return
			}
			s := onlyOne(t, safety, "safety event").Safety
			if s.Level != "hard_stop" || s.Drug != tt.drug || s.AllergiesAsked != tt.askFirst || s.Known != tt.askFirst {
				t.Errorf("safety = %+v, want a hard stop on %s with allergies_asked and known %v", s, tt.drug, tt.askFirst)
			}
			if !tt.askFirst {
				if !order.Given || len(errs) != 1 || !strings.Contains(errs[0].Error.Description, "without knowing the patient's allergies") {
					t.Errorf("never asked: given %v, errors %+v; want it given and one critical error", order.Given, errs)
				}
				if !slices.ContainsFunc(rep.Timeline, func(e aar.TimelineEntry) bool { return e.Kind == "critical_error" }) {
					t.Errorf("AAR timeline has no critical error: %+v", rep.Timeline)
				}
				return
			}
			if order.Given || len(errs) != 0 || len(rep.CriticalErrors) != 0 || len(simOf(events, physio.EventAction)) != 0 {
				t.Errorf("a known allergy: given %v, errors %+v; want it stopped with no error", order.Given, errs)
			}
			said := onlyOne(t, agentMessages(events), "agent message")
			if said.Agent != "Pharmacist" || !strings.HasPrefix(said.Text, "STOP — penicillin allergy (hives and facial swelling): "+tt.drug+" is a penicillin.") ||
				!strings.Contains(said.Text, `repeat the order with the word "override"`) {
				t.Errorf("%s said %q, want the Pharmacist's stop in plain words", said.Agent, said.Text)
			}
			if n := rep.NearMisses; len(n) != 1 || n[0].Drug != tt.drug {
				t.Errorf("near misses %+v, want the stopped %s", n, tt.drug)
			}
		})
	}
}

// A patient who arrives by NEW_BLANK with no scenario gets one picked from their id alone,
// announced by ward with its presentation (never its title), with the registry's facts filled
// from it.
func TestNewBlankPatientGetsAnnouncedScenario(t *testing.T) {
	for _, input := range []string{"review patient_7", "/admit patient_7", "switch to patient_12"} {
		t.Run(input, func(t *testing.T) {
			r := newRig(t)
			id := "patient_" + input[strings.LastIndex(input, "_")+1:]
			want, err := r.s.cfg.Scenarios.PickScenario(id, nil)
			if err != nil {
				t.Fatal(err)
			}
			events := r.turn(input)
			if d := decisionOf(t, events); d.Decision != "NEW_BLANK" || d.PatientID != id {
				t.Fatalf("decision %s %s, want NEW_BLANK %s", d.Decision, d.PatientID, id)
			}
			var announced []int
			for i, e := range events {
				if m, ok := e.(MessageEvent); ok && m.Agent == memory.SystemAgent {
					announced = append(announced, i)
					if !strings.Contains(m.Text, want.Presentation) || !strings.Contains(m.Text, want.Demographics.Name) || m.PatientID != id {
						t.Errorf("announcement %+v does not give %s's presentation %q", m, id, want.Presentation)
					}
					if strings.Contains(m.Text, want.Title) {
						t.Errorf("announcement %q gives away the scenario's title", m.Text)
					}
				}
			}
			if len(announced) != 1 {
				t.Fatalf("%d announcements from ward, want 1", len(announced))
			}
			if routes := slices.IndexFunc(events, func(e Event) bool { _, ok := e.(RouteEvent); return ok }); routes >= 0 && routes < announced[0] {
				t.Errorf("an agent was routed before the admission was announced")
			}

			d := r.dump()
			if got := d.Sim[id].Scenario; got != want.ID {
				t.Errorf("engine runs %q, want the pick %q", got, want.ID)
			}
			facts := d.Registry.Patients[id].Facts
			wantFacts := map[string]any{
				"scenario": want.ID, "name": want.Demographics.Name, "age": want.Demographics.Age,
				"sex": want.Demographics.Sex, "bed": want.Demographics.Bed,
			}
			for k, v := range wantFacts {
				if fmt.Sprint(facts[k]) != fmt.Sprint(v) {
					t.Errorf("facts[%s] = %v, want %v", k, facts[k], v)
				}
			}
			allergies, _ := facts["allergies"].(string)
			for _, a := range want.Allergies {
				if !strings.Contains(allergies, a.Agent) {
					t.Errorf("facts[allergies] = %q, want it to name %s", allergies, a.Agent)
				}
			}
			if len(want.Allergies) == 0 && allergies != "NKDA" {
				t.Errorf("facts[allergies] = %q for a patient with none, want NKDA", allergies)
			}

			again := newRig(t)
			again.turn(input)
			if got := again.dump().Sim[id].Scenario; got != want.ID {
				t.Errorf("a second shift picked %q for %s, want the same %q", got, id, want.ID)
			}
		})
	}
}

func TestMultiCasualtyShiftStartsWithEightPatientsNoneActive(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Shift = "multi-casualty" })
	shift, err := r.s.cfg.Scenarios.Shift("multi-casualty")
	if err != nil {
		t.Fatal(err)
	}
	if r.s.Active() != "" {
		t.Errorf("active patient %q at the start of a shift, want none", r.s.Active())
	}
	d := r.dump()
	if len(d.Registry.Patients) != 8 || d.Registry.ActivePatientID != "" || len(d.Sim) != 8 {
		t.Fatalf("registry %d patients (active %q), sim %d engines; want 8, none active, 8",
			len(d.Registry.Patients), d.Registry.ActivePatientID, len(d.Sim))
	}
	for _, p := range shift.Patients {
		facts := d.Registry.Patients[p.ID].Facts
		if facts["scenario"] != p.Scenario || facts["bed"] != p.Bed || d.Sim[p.ID].Scenario != p.Scenario {
			t.Errorf("%s: facts %v, engine %q; want scenario %s in %s", p.ID, facts, d.Sim[p.ID].Scenario, p.Scenario, p.Bed)
		}
	}
	end := turnEnd(t, r.turn("/patients"))
	if end.ActivePatient != nil || len(end.Roster) != 8 {
		t.Errorf("turn_end active %v roster %v, want none active and 8 on the roster", end.ActivePatient, end.Roster)
	}
	r.turn("/wait 1m")
	for id, s := range r.dump().Sim {
		if s.T != 60 {
			t.Errorf("%s at t=%g after /wait 1m, want 60: time runs for every patient", id, s.T)
		}
	}
}

// A restart resumes the clock and every engine exactly: the restarted shift and one that never
// stopped go on to measure the same vitals.
func TestRestartKeepsSimClockAndEngineState(t *testing.T) {
	before := []string{
		"/admit patient_1 asthma-exacerbation",
		"applying oxygen via non-rebreather at 15 L/min",
		"attach the monitor",
		"any allergies?",
		"/wait 3m",
	}
	after := []string{"how is your breathing now?", "/wait 5m", "checking vitals"}
	steady, restarted := newRig(t), newRig(t)
	for _, in := range before {
		steady.turn(in)
		restarted.turn(in)
	}
	engine, mem := engineJSON(t, restarted), memoryJSON(t, restarted)
	restarted.restart()
	if got := restarted.s.sim.ward.Clock(); got != 180 {
		t.Fatalf("sim clock %g after restart, want 180", got)
	}
	if got := engineJSON(t, restarted); got != engine {
		t.Errorf("engine state changed across the restart:\nbefore %s\nafter  %s", engine, got)
	}
	if got := memoryJSON(t, restarted); got != mem {
		t.Errorf("memory changed across the restart:\nbefore %s\nafter  %s", mem, got)
	}
	for _, in := range after {
		a, b := simJSON(t, steady.turn(in)), simJSON(t, restarted.turn(in))
		if a != b {
			t.Errorf("%q: engine events differ after the restart:\nsteady    %s\nrestarted %s", in, a, b)
		}
	}
	if *steady.dump().Sim["patient_1"].TrueVitals != *restarted.dump().Sim["patient_1"].TrueVitals {
		t.Errorf("true vitals diverged after the restart")
	}
}

// After a restart the registry still names the active patient, and the first turn restores it
// silently. A slash command is a turn too: /vitals must not answer "no patient".
func TestSlashCommandsAfterRestartFindTheActivePatient(t *testing.T) {
	for _, cmd := range []string{"/vitals", "/aar", "/note", "/handoff", "/patients"} {
		t.Run(cmd, func(t *testing.T) {
			r := newRig(t)
			r.turn("/admit patient_1 asthma-exacerbation")
			r.restart()
			events := r.turn(cmd)
			for _, e := range only[ErrorEvent](events) {
				t.Errorf("%s after restart: error %s: %s", cmd, e.Code, e.Message)
			}
			if end := turnEnd(t, events); end.ActivePatient == nil || *end.ActivePatient != "patient_1" {
				t.Errorf("%s after restart: active %v, want patient_1 from the registry", cmd, end.ActivePatient)
			}
		})
	}
}

func onlyOne[T any](t *testing.T, xs []T, what string) T {
	t.Helper()
	if len(xs) != 1 {
		t.Fatalf("%d %s, want exactly 1: %+v", len(xs), what, xs)
	}
	return xs[0]
}

func partsSum(t *testing.T, vitals jsonEvent) float64 {
	t.Helper()
	parts, ok := vitals["news2_parts"].(map[string]any)
	if !ok || len(parts) != 7 {
		t.Fatalf("news2_parts = %v, want the seven RCP parameters", vitals["news2_parts"])
	}
	sum := 0.0
	for _, v := range parts {
		sum += v.(float64)
	}
	return sum
}

func aarOf(t *testing.T, e jsonEvent) aar.Report {
	t.Helper()
	b, _ := json.Marshal(e)
	var rep aar.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// dumpJSON is `ward dump` as its reader sees it: the document encoded and decoded.
func dumpJSON(t *testing.T, r *rig) map[string]any {
	t.Helper()
	b, err := json.Marshal(r.dump())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func engineJSON(t *testing.T, r *rig) string {
	t.Helper()
	e := r.engine("patient_1")
	if e == nil {
		t.Fatal("no engine for patient_1")
	}
	b, _ := json.Marshal(e.Snapshot())
	return string(b)
}

func memoryJSON(t *testing.T, r *rig) string {
	t.Helper()
	b, _ := json.Marshal(r.s.sim.memory("patient_1"))
	return string(b)
}

func simJSON(t *testing.T, events []Event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range only[SimEvent](events) {
		line, err := EncodeJSON(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}
