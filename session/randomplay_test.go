package session

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/scenario"
)

// Random play: long random sequences of what a trainee and an instructor do, on every built-in
// scenario, through the real turn (the offline backend, a bbolt file), checked after every step
// against the invariants of docs/invariants.md. rapid shrinks a failing sequence to a short one
// and prints it; each such sequence becomes a test of its own (truth_test.go).
//
// `go test -run TestRandomPlay ./session/` plays a short, fixed-seed sample (unless -rapid.seed
// or -rapid.checks is given), so the suite passes or fails the same way on every run;
// .ci/randomplay.sh plays fresh seeds, longer, for a bounded time.

// The trainee's vocabulary: the lexicon's examinations, its actions, questions and orders.
var (
	playExams = []string{
		"examine the airway", "look in her mouth", "listen to the chest", "percuss the chest", "look at the chest",
		"check the trachea", "listen to the heart", "check cap refill", "feel the pulses", "look at the skin",
		"examine the abdomen", "examine the legs", "check the pupils", "check his GCS", "neuro exam",
		"examine him", "a to e assessment", "work of breathing", "check the breath sounds",
	}
	playActions = []string{
		"check vitals", "attach the monitor", "oxygen 15 L via non-rebreather", "oxygen 2 L nasal cannula",
		"stop the oxygen", "IV access", "500 mL saline bolus", "12-lead ECG", "check a blood glucose", "blood gas",
		"lactate", "blood cultures", "sit him up", "lie her flat", "recovery position", "jaw thrust",
		"start CPR", "stop CPR", "rhythm check", "check for a pulse", "crash call", "pads on",
		"charge to 150 J", "shock 150 J", "consider the 4 Hs and 4 Ts", "bag valve mask ventilation",
		"target sats 88-92", "target sats 94-98", "call the registrar", "needle decompression on the right",
		"needle decompression on the left",
	}
	playAsks = []string{
		"any allergies?", "what medications do you take?", "when did this start?", "how are you feeling?",
		"any pain?", "when did you last eat?", "any medical history?",
	}
	playDrugs  = []string{"adrenaline", "morphine", "paracetamol", "amoxicillin", "co-amoxiclav", "ampicillin", "ibuprofen", "naloxone", "amiodarone", "salbutamol", "ceftriaxone", "glucose 10%", "insulin", "aspirin", "zorbazine", "glucagon", "ondansetron", "lorazepam", "chlorphenamine", "hydrocortisone"}
	playDoses  = []string{"500 micrograms", "1 mg", "2 mg", "5 mg", "10 mg", "300 mg", "1 g", "150 mL", "", "0.5 mg"}
	playRoutes = []string{"IV", "IM", "PO", "SC", "NEB", "IO", ""}
)

// playStep is one thing done in random play: a line typed, or an instructor's injection.
type playStep struct {
	Line   string     // what the trainee types
	Inject *Injection // what the instructor injects instead
}

func (p playStep) String() string {
	if p.Inject != nil {
		return fmt.Sprintf("inject %s %s into %s", p.Inject.Kind, p.Inject.State, p.Inject.PatientID)
	}
	return p.Line
}

// drawStep draws one step for a shift whose patients are ids.
func drawStep(t *rapid.T, s *Session, ids []string) playStep {
	switch rapid.IntRange(0, 9).Draw(t, "kind") {
	case 0, 1:
		return playStep{Line: rapid.SampledFrom(playExams).Draw(t, "exam")}
	case 2, 3:
		return playStep{Line: rapid.SampledFrom(playActions).Draw(t, "action")}
	case 4:
		return playStep{Line: rapid.SampledFrom(playAsks).Draw(t, "ask")}
	case 5:
		order := strings.Join(strings.Fields(strings.Join([]string{"give", rapid.SampledFrom(playDrugs).Draw(t, "drug"),
			rapid.SampledFrom(playDoses).Draw(t, "dose"), rapid.SampledFrom(playRoutes).Draw(t, "route")}, " ")), " ")
		return playStep{Line: order}
	case 6, 7:
		return playStep{Line: fmt.Sprintf("/wait %ds", rapid.SampledFrom([]int{5, 30, 60, 130, 300, 600}).Draw(t, "wait"))}
	case 8:
		return playStep{Line: "/switch " + rapid.SampledFrom(ids).Draw(t, "patient")}
	}
	id := rapid.SampledFrom(ids).Draw(t, "patient")
	states := s.InjectChoices().States[id]
	if len(states) == 0 {
		return playStep{Line: "/vitals"}
	}
	return playStep{Inject: &Injection{Kind: InjectDeterioration, PatientID: id, State: rapid.SampledFrom(states).Draw(t, "state")}}
}

// Counters of what random play did, for the CI script's closing line.
var playedSequences, playedSteps atomic.Int64

func TestRandomPlay(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, sc := range lib.List() {
		ids = append(ids, sc.ID)
	}
	fixSampleUnlessAsked(t, map[string]string{"rapid.seed": "1", "rapid.checks": "15"})
	dir := t.TempDir()
	steps := 25
	if v, err := strconv.Atoi(os.Getenv("WARD_RANDOMPLAY_STEPS")); err == nil && v > 0 {
		steps = v
	}
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		s := playSession(rt, filepath.Join(dir, fmt.Sprintf("play%d.db", n)))
		first := rapid.SampledFrom(ids).Draw(rt, "scenario")
		second := rapid.SampledFrom(ids).Draw(rt, "second scenario")
		patients := []string{"patient_1"}
		check := newInvariants(rt, s)
		check.turn("/admit patient_1 " + first)
		if second != first {
			patients = append(patients, "patient_2")
			check.turn("/admit patient_2 " + second)
			check.turn("/switch patient_1")
		}
		for range rapid.IntRange(1, steps).Draw(rt, "steps") {
			step := drawStep(rt, s, patients)
			if step.Inject != nil {
				check.inject(*step.Inject)
			} else {
				check.turn(step.Line)
			}
			playedSteps.Add(1)
		}
		playedSequences.Add(1)
	})
	t.Logf("random play: %d sequences, %d steps", playedSequences.Load(), playedSteps.Load())
}

// fixSampleUnlessAsked sets rapid's flags to values unless the command line set them.
func fixSampleUnlessAsked(t *testing.T, values map[string]string) {
	asked := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { asked[f.Name] = true })
	for name, v := range values {
		if asked[name] {
			continue
		}
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flag.Set(name, old) })
	}
}

func playSession(t *rapid.T, path string) *Session {
	store, err := persist.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clock := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	s, err := Start(Config{Store: store, Backend: offline.New(), Analyzer: analyzer.NewAnalyzer(nil), Seed: 7,
		Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// invariants holds what the checks need across steps: the newest reading of each patient.
type invariants struct {
	t       *rapid.T
	s       *Session
	latest  map[string]physio.Reading
	history []string
}

func newInvariants(t *rapid.T, s *Session) *invariants {
	return &invariants{t: t, s: s, latest: map[string]physio.Reading{}}
}

func (c *invariants) turn(line string) {
	c.history = append(c.history, line)
	var events []Event
	c.s.Turn(context.Background(), line, func(e Event) { events = append(events, e) })
	c.checkAll(line, events)
}

func (c *invariants) inject(in Injection) {
	c.history = append(c.history, playStep{Inject: &in}.String())
	var events []Event
	if err := c.s.Inject(context.Background(), in, func(e Event) { events = append(events, e) }); err != nil {
		return // an injection the shift cannot take now is refused, and that is all
	}
	c.checkAll("", events)
}

func (c *invariants) fail(format string, args ...any) {
	c.t.Helper()
	c.t.Fatalf("after %q: %s", c.history, fmt.Sprintf(format, args...))
}

// checkAll holds one step's events to every invariant.
func (c *invariants) checkAll(line string, events []Event) {
	c.t.Helper()
	for _, ev := range events {
		if _, err := EncodeJSON(ev); err != nil {
			c.fail("an event does not encode: %v", err)
		}
		switch e := ev.(type) {
		case SimEvent:
			c.checkSim(*e.Event)
		case MessageEvent:
			c.checkMessage(line, e)
		}
	}
	c.checkRosterTrend()
}

// checkRosterTrend: the roster's NEWS2 direction compares the newest reading with the newest of
// an earlier second; a check in the nurse's second is that moment again, not a steady score.
func (c *invariants) checkRosterTrend() {
	c.t.Helper()
	for _, p := range c.s.Summaries() {
		eng, _ := c.s.sim.engine(p.ID)
		if eng == nil {
			continue
		}
		rs := eng.Readings()
		want, has := 0, false
		for i := len(rs) - 2; i >= 0; i-- {
			if rs[i].T < rs[len(rs)-1].T {
				want, has = rs[i].NEWS2, true
				break
			}
		}
		if p.HasPrev != has || p.Prev != want && has {
			c.fail("%s's roster compares NEWS2 with %d (known %v); the newest reading of an earlier second has %d (known %v)", p.ID, p.Prev, p.HasPrev, want, has)
		}
	}
}

func (c *invariants) checkSim(e physio.Event) {
	c.t.Helper()
	switch e.Kind {
	case physio.EventVitals:
		r := e.Reading
		if got := physio.NEWS2(r.Vitals, r.Scale, r.OnOxygen).Total; got != r.NEWS2 {
			c.fail("a reading at %g shows NEWS2 %d; its own vitals score %d", r.T, r.NEWS2, got)
		}
		c.latest[e.PatientID] = r
	case physio.EventAlarm, physio.EventEscalation:
		r, ok := c.latest[e.PatientID]
		if !ok {
			return
		}
		for label, n := range numbersSaid(e.Alert.Text) {
			if want := readingNumber(r, label); want != n {
				c.fail("%s at %g says %s %d; the newest reading (%g) has %d: %q", e.Kind, e.Alert.T, label, n, r.T, want, e.Alert.Text)
			}
		}
		settled := r.NEWS2 < 5 && r.Band != physio.BandLowMedium && !r.NoOutput
		if e.Kind == physio.EventEscalation && e.Alert.Repeats > 0 && settled && !strings.HasPrefix(e.Alert.Text, "Settled since the call") {
			c.fail("a repeat at %g on NEWS2 %d, which calls for no review, says %q", e.Alert.T, r.NEWS2, e.Alert.Text)
		}
	case physio.EventOrder:
		c.checkOrder(e)
	}
}

// checkOrder: no order is given against an allergy the trainee knew of without an override.
func (c *invariants) checkOrder(e physio.Event) {
	c.t.Helper()
	o := e.Order
	if !o.Given || o.Override {
		return
	}
	eng, _ := c.s.sim.engine(e.PatientID)
	for _, r := range eng.SafetyRecords() {
		if r.T == o.T && r.Drug == o.Drug && r.Known && r.Level == "hard_stop" && (r.Rule == "allergy" || r.Rule == "cross_reactivity") {
			c.fail("%s was given against a known allergy without an override", o.Drug)
		}
	}
}

// simSeconds is the time [hours, minutes, seconds] a "T+[H:]MM:SS" names ("" before an hour).
func simSeconds(hms []string) float64 {
	hours, _ := strconv.Atoi(hms[0])
	min, _ := strconv.Atoi(hms[1])
	sec, _ := strconv.Atoi(hms[2])
	return float64(hours*3600 + min*60 + sec)
}

func readingNumber(r physio.Reading, label string) int {
	switch label {
	case "hr":
		return r.HR
	case "rr":
		return r.RR
	case "spo2":
		return r.SpO2
	case "sbp":
		return r.SBP
	case "dbp":
		return r.DBP
	case "gcs":
		return r.GCS
	case "news2":
		return r.NEWS2
	}
	return -1
}

var (
	measuredAt   = regexp.MustCompile(`^Measured at T\+(?:(\d+):)?(\d+):(\d\d)\b`) // physio.SimTime: [H:]MM:SS
	doubledStop  = regexp.MustCompile(`[^.]\.\.(?:[^.]|$)|\.[;,]`)                 // "seconds.." or "seconds.;", not an ellipsis
	changedSince = regexp.MustCompile(`\b[Ss]ince T\+(?:(\d+):)?(\d+):(\d\d)\b`)   // the Monitor's "Since T+02:00: HR down from 53"
	examGCS      = regexp.MustCompile(`E(\d) V(\d|T) M(\d)(?: \((\d+)\))?`)
)

// checkMessage holds one line said to the trainee to the engine now.
func (c *invariants) checkMessage(line string, m MessageEvent) {
	c.t.Helper()
	if m.PatientID == "" {
		return
	}
	eng, _ := c.s.sim.engine(m.PatientID)
	if eng == nil {
		return
	}
	if mm := measuredAt.FindStringSubmatch(m.Text); mm != nil {
		at := eng.Admitted() + simSeconds(mm[1:])
		if since := changedSince.FindStringSubmatch(m.Text); since != nil && eng.Admitted()+simSeconds(since[1:]) >= at {
			c.fail("%q tells a change since a moment no earlier than its own", m.Text)
		}
		r, ok := readingAt(eng, at)
		if !ok {
			c.fail("%q names a reading at %g the engine has not taken", m.Text, at)
		}
		for label, n := range numbersSaid(strings.SplitN(m.Text, " — ", 2)[0]) {
			if want := readingNumber(r, label); want != n {
				c.fail("%q says %s %d; the reading has %d", m.Text, label, n, want)
			}
		}
	}
	if g := examGCS.FindStringSubmatch(m.Text); g != nil && g[2] != "T" {
		e, _ := strconv.Atoi(g[1])
		v, _ := strconv.Atoi(g[2])
		mo, _ := strconv.Atoi(g[3])
		if now := eng.TrueVitals().GCS; e+v+mo != now {
			c.fail("%q finds GCS %d; the engine has %d", m.Text, e+v+mo, now)
		}
	}
	if stops := doubledStop.FindString(m.Text); stops != "" {
		c.fail("%q runs a phrase's own full stop into the line's (%q)", m.Text, stops)
	}
	c.checkFindings(m, eng)
	c.checkRhythmUnnamed(line, m, eng)
	c.checkStateUnnamed(m, eng)
}

// checkStateUnnamed: a case's states are the author's and the instructor's words, never a
// trainee's: no voice says a state's id as written ("septic-shock", "refractory_shock") or its
// description. A one-word id ("sepsis") is also a clinical word, so only written ids are looked
// for, and of those only scenario.BedsideWords may be said: what an examiner sees, not a
// conclusion. (A finding is held to more when the case is checked: Scenario.Conclusions.)
func (c *invariants) checkStateUnnamed(m MessageEvent, e *physio.Engine) {
	c.t.Helper()
	text := strings.ToLower(m.Text)
	for id, st := range e.Scenario().States {
		if strings.ContainsAny(id, "-_") && !scenario.BedsideWords[id] && regexp.MustCompile(`\b`+regexp.QuoteMeta(strings.ToLower(id))+`\b`).MatchString(text) {
			c.fail("%s said the state %q: %q", m.Agent, id, m.Text)
		}
		if d := strings.ToLower(strings.TrimSpace(st.Description)); d != "" && strings.Contains(text, d) {
			c.fail("%s said the description of the state %q: %q", m.Agent, id, m.Text)
		}
	}
}

// checkRhythmUnnamed: ward's own voices (the nurse, the monitor, ward) name no rhythm the trainee
// has not asked a 12-lead for or named themselves: they read the strip.
func (c *invariants) checkRhythmUnnamed(line string, m MessageEvent, e *physio.Engine) {
	c.t.Helper()
	asked := strings.ToLower(line)
	if m.Agent == "Patient" || isBystander(m.Agent, e) || strings.Contains(asked, "ecg") || strings.Contains(asked, "12") || strings.Contains(asked, "lead") {
		return
	}
	r := string(e.Rhythm())
	if r == "" || strings.Contains(asked, strings.ToLower(r)) {
		return
	}
	if regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(r) + `\b`).MatchString(m.Text) {
		c.fail("%s named the rhythm %q unasked: %q", m.Agent, r, m.Text)
	}
}

// isBystander: a relative or witness tells the history as they know it ("she has atrial
// fibrillation"), which is not ward reading the strip.
func isBystander(agent string, e *physio.Engine) bool {
	b := e.Scenario().Bystander
	return b != nil && agent == bystanderSource(b)
}

// readingAt is the engine's reading taken at ward time t.
func readingAt(e *physio.Engine, t float64) (physio.Reading, bool) {
	rs := e.Readings()
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].T == t {
			return rs[i], true
		}
	}
	if r, ok := e.Measured(); ok && r.T == t {
		return r, true
	}
	return physio.Reading{}, false
}

// checkFindings: an examination finds nothing the body contradicts.
func (c *invariants) checkFindings(m MessageEvent, e *physio.Engine) {
	c.t.Helper()
	if !strings.HasPrefix(m.Text, "On examination") {
		return
	}
	text := strings.ToLower(m.Text)
	v := e.TrueVitals()
	if v.Wheeze >= 2 && strings.Contains(text, "clear, with equal air entry") {
		c.fail("%q with wheeze %d", m.Text, v.Wheeze)
	}
	if (strings.Contains(text, "a cannula in") || strings.Contains(text, "cannula in situ")) && !e.HasAccess() {
		c.fail("%q with no IV access", m.Text)
	}
	if strings.Contains(text, "no cannula") && e.HasAccess() {
		c.fail("%q with IV access", m.Text)
	}
}

func mustMarshal(v any) string { b, _ := json.Marshal(v); return string(b) }

// The random-play harness's own checks decode what `ward run` prints.
func TestNumbersSaidReadsTheMonitorsWords(t *testing.T) {
	got := numbersSaid("NEWS2 16 (Scale 1) — RR 28, SpO2 92% on air, BP 78/42, HR 134, temp 39.3, GCS 12.")
	want := map[string]int{"news2": 16, "rr": 28, "spo2": 92, "sbp": 78, "dbp": 42, "hr": 134, "gcs": 12}
	if b, w := mustMarshal(got), mustMarshal(want); b != w {
		t.Errorf("numbersSaid = %v, want %v", got, want)
	}
}
