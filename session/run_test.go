package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/scenario"
)

// jsonEvent is one decoded output line of `ward run`.
type jsonEvent map[string]any

func (e jsonEvent) kind() string { s, _ := e["event"].(string); return s }

func (e jsonEvent) str(key string) string { s, _ := e[key].(string); return s }

func (e jsonEvent) num(key string) float64 { f, _ := e[key].(float64); return f }

// runJSON feeds input to the headless runner and decodes every line it wrote. The runner's
// contract is one JSON object per line and nothing else, with "event" as the first field, so
// anything else fails the test.
func runJSON(t *testing.T, s *Session, input string) []jsonEvent {
	t.Helper()
	var out bytes.Buffer
	if err := s.RunLines(context.Background(), strings.NewReader(input), &out); err != nil {
		t.Fatalf("RunLines: %v", err)
	}
	if out.Len() == 0 {
		return nil
	}
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		t.Fatalf("output does not end with a newline: %q", tail(out.String()))
	}
	var events []jsonEvent
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if !strings.HasPrefix(line, `{"event":"`) {
			t.Fatalf("output line is not an event object: %q", tail(line))
		}
		var e jsonEvent
		dec := json.NewDecoder(strings.NewReader(line))
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("output line is not JSON (%v): %q", err, tail(line))
		}
		if dec.More() {
			t.Fatalf("output line holds more than one JSON value: %q", tail(line))
		}
		events = append(events, e)
	}
	return events
}

func tail(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// byTurn splits a run's events at each turn_end, which closes its turn.
func byTurn(events []jsonEvent) [][]jsonEvent {
	var turns [][]jsonEvent
	start := 0
	for i, e := range events {
		if e.kind() == "turn_end" {
			turns = append(turns, events[start:i+1])
			start = i + 1
		}
	}
	return turns
}

func ofKind(events []jsonEvent, kind string) []jsonEvent {
	var out []jsonEvent
	for _, e := range events {
		if e.kind() == kind {
			out = append(out, e)
		}
	}
	return out
}

// only filters a turn's events down to one Go type.
func only[T Event](events []Event) []T {
	var out []T
	for _, e := range events {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// simOf returns the engine events of one kind (vitals, action, safety, state, critical_error).
func simOf(events []Event, kind string) []physio.Event {
	var out []physio.Event
	for _, e := range only[SimEvent](events) {
		if e.Event.Kind == kind {
			out = append(out, *e.Event)
		}
	}
	return out
}

// newRigWith is newRig with the configuration changed before the shift starts.
func newRigWith(t *testing.T, change func(*Config)) *rig {
	t.Helper()
	store, err := persist.Open(filepath.Join(t.TempDir(), "ward.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clock := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	lib, err := builtinLibrary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Store: store, Backend: offline.New(), Analyzer: analyzer.NewAnalyzer(nil), Scenarios: lib,
		Now: func() time.Time { clock = clock.Add(time.Second); return clock },
	}
	change(&cfg)
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, store: store, cfg: cfg, s: s}
}

// builtinLibrary is the built-in library, loaded once and shared by the rigs, as ward serve shares
// one among a class (a Library is read-only and safe to share). A library of its own per rig
// would parse every scenario again in each test whose patient arrives without one (PickScenario
// parses them all to choose): most of those tests' time under -race.
var builtinLibrary = sync.OnceValues(func() (*scenario.Library, error) { return scenario.Load() })

// lines joins input lines the way a file or a pipe gives them to `ward run`.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestRunLinesEndsEveryLineWithOneTurnEnd(t *testing.T) {
	input := []string{
		"/help",
		"",
		"hello, is anyone on shift?",
		"   ",
		"/nonsense",
		"/wait banana",
		"/vitals",
		"review patient_2",
		"\t",
		"/admit patient_1 asthma-exacerbation",
		"/admit patient_1 asthma-exacerbation",
		"/admit patient_9 no-such-scenario",
		"  /patients  ",
		"give ampicillin 500 mg IV\r",
		"what should I do next?",
		"yes",
		"/inspect",
		"/note",
		"/handoff ipass",
		"/handoff telegram",
		"/speed 11",
		"/pause",
		"/wait 30s",
		"/aar",
		"switch patient please",
		"/clear",
		"clear patient context",
	}
	r := newRig(t)
	events := runJSON(t, r.s, lines(input...))
	for _, e := range events {
		if e.kind() == "delta" {
			t.Fatalf("ward run printed a streaming delta: %v", e)
		}
	}
	var want []string
	for _, l := range input {
		if strings.TrimSpace(l) != "" {
			want = append(want, strings.TrimSuffix(l, "\r"))
		}
	}
	turns := byTurn(events)
	if got := len(ofKind(events, "turn_end")); got != len(want) || len(turns) != len(want) {
		t.Fatalf("%d turn_end events for %d non-empty lines", got, len(want))
	}
	if rest := events[len(events)-1]; rest.kind() != "turn_end" {
		t.Fatalf("events after the last turn_end: %v", rest)
	}
	for i, turn := range turns {
		end := turn[len(turn)-1]
		if got := end.str("input"); got != want[i] {
			t.Errorf("turn %d ended with input %q, want %q", i, got, want[i])
		}
		roster, ok := end["roster"].([]any)
		ids := make([]string, len(roster))
		for j, id := range roster {
			ids[j], _ = id.(string)
		}
		if !ok || !slices.IsSorted(ids) {
			t.Errorf("turn %d: roster %v, want a sorted list", i, end["roster"])
		}
		if active, present := end["active_patient"]; !present || (active != nil && !slices.Contains(ids, fmt.Sprint(active))) {
			t.Errorf("turn %d: active_patient %v is neither null nor on the roster %v", i, active, ids)
		}
	}
}

func TestRunLinesEmptyInputWritesNothing(t *testing.T) {
	r := newRig(t)
	if events := runJSON(t, r.s, "\n\n   \n"); len(events) != 0 {
		t.Errorf("blank input produced %d events: %v", len(events), events)
	}
}

// Time passes only by /wait in ward run. Vitals are measured, not broadcast: nothing is reported
// before the nurse's first observations (due at five minutes) while no monitor is attached, and an
// attached monitor reports as the clock runs.
func TestRunLinesWaitAdvancesClockAndMonitorReports(t *testing.T) {
	r := newRig(t)
	turns := byTurn(runJSON(t, r.s, lines(
		"/admit patient_1 asthma-exacerbation",
		"/wait 4m59s",
		"/wait 1s",
		"attach the monitor",
		"/wait 5m",
	)))
	if len(turns) != 5 {
		t.Fatalf("%d turns, want 5", len(turns))
	}
	if v := ofKind(turns[2], "vitals"); len(v) != 1 || v[0].str("source") != "nurse" || v[0].num("t") != 300 {
		t.Errorf("the nurse's first observations at 5:00: %v", v)
	}
	turns = slices.Delete(turns, 2, 3)
	if len(turns) != 4 {
		t.Fatalf("%d turns, want 4", len(turns))
	}
	if v := ofKind(turns[1], "vitals"); len(v) != 0 {
		t.Errorf("/wait with no monitor reported vitals: %v", v)
	}
	if msgs := ofKind(turns[1], "message"); len(msgs) != 1 || !strings.Contains(msgs[0].str("text"), "sim clock 04:59") {
		t.Errorf("first /wait messages %v, want the clock at 4:59", msgs)
	}
	vitals := ofKind(turns[3], "vitals")
	if len(vitals) < 5 {
		t.Fatalf("an attached monitor reported %d readings over 5 sim minutes, want at least one a minute", len(vitals))
	}
	last := 300.0
	for _, v := range vitals {
		if v.str("source") != "monitor" || v.str("patient_id") != "patient_1" {
			t.Errorf("reading %v is not patient_1's monitor", v)
		}
		if v.num("t") <= last || v.num("t") > 600 {
			t.Errorf("reading at t=%g, want strictly after %g and by 600", v.num("t"), last)
		}
		last = v.num("t")
		if _, ok := v["news2"].(float64); !ok {
			t.Errorf("reading has no NEWS2: %v", v)
		}
	}
	if got := r.dump().Sim["patient_1"].T; got != 600 {
		t.Errorf("stored sim time %g s, want 600", got)
	}
}

func TestRunLinesRefusesOverlongLines(t *testing.T) {
	t.Parallel() // its own rigs: see sample_test.go
	tests := []struct {
		name    string
		long    string
		refused bool
	}{
		{"one byte over", strings.Repeat("a", MaxInputBytes+1) + "\n", true},
		{"far over, with CRLF", strings.Repeat("bcd ", MaxInputBytes/2) + "\r\n", true},
		{"at the limit", strings.Repeat("e", MaxInputBytes) + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			turns := byTurn(runJSON(t, r.s, "review patient_1\n"+tt.long+"/patients\n"))
			if len(turns) != 3 {
				t.Fatalf("%d turns, want 3 (the long line ends its own turn)", len(turns))
			}
			errs := ofKind(turns[1], "error")
			refused := len(errs) == 1 && errs[0].str("code") == "INPUT_TOO_LONG"
			if refused != tt.refused {
				t.Fatalf("refused=%v (errors %v), want %v", refused, errs, tt.refused)
			}
			if end := turns[1][len(turns[1])-1]; tt.refused && len(end.str("input")) > 64 {
				t.Errorf("a refused line's turn_end carries %d bytes of it, want a short preview", len(end.str("input")))
			}
			if msgs := ofKind(turns[2], "message"); len(msgs) != 1 || !strings.Contains(msgs[0].str("text"), "(patient_1) is active") {
				t.Errorf("the line after the long one did not work: %v", turns[2])
			}
			stored := 0
			for _, m := range r.dump().Histories["patient_1"] {
				stored = max(stored, len(m.Content))
			}
			if tt.refused && stored > 1024 {
				t.Errorf("a refused line was stored (%d bytes)", stored)
			}
			if !tt.refused && stored != MaxInputBytes {
				t.Errorf("a line at the limit was not stored whole: longest message %d bytes", stored)
			}
		})
	}
}

func TestRunLinesDecisionsCarryTiming(t *testing.T) {
	r := newRig(t)
	events := runJSON(t, r.s, lines("review patient_1", "how are you feeling?", "switch to patient_2", "/switch patient_1", "/clear"))
	decisions := ofKind(events, "decision")
	if len(decisions) != 5 {
		t.Fatalf("%d decision events, want 5", len(decisions))
	}
	// Every one of these turns wrote to the store before it ended: the line, with its answer or
	// before a model was asked, is the turn's commit, not the decision's.
	for _, end := range ofKind(events, "turn_end") {
		if timing, _ := end["timing"].(map[string]any); timing["storage_ms"].(float64) <= 0 {
			t.Errorf("%q: storage_ms %v, want the durable commit's cost", end.str("input"), timing["storage_ms"])
		}
	}
	for _, d := range decisions {
		timing, ok := d["timing"].(map[string]any)
		if !ok {
			t.Fatalf("decision without timing: %v", d)
		}
		ms := map[string]float64{}
		for _, k := range []string{"analyzer_ms", "storage_ms", "service_ms"} {
			v, ok := timing[k].(float64)
			if !ok || v < 0 {
				t.Errorf("%q: timing.%s = %v, want a number ≥ 0", d.str("input"), k, timing[k])
			}
			ms[k] = v
		}
		if ms["service_ms"] < ms["analyzer_ms"] {
			t.Errorf("%q: service_ms %g is less than analyzer_ms %g", d.str("input"), ms["service_ms"], ms["analyzer_ms"])
		}
		for _, k := range []string{"decision", "analyzer_action", "source", "reasoning"} {
			if d.str(k) == "" {
				t.Errorf("%q: decision has no %s", d.str("input"), k)
			}
		}
	}
	for _, end := range ofKind(events, "turn_end") {
		if _, ok := end["timing"].(map[string]any); !ok {
			t.Errorf("turn_end without timing: %v", end)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A runner that cannot write must stop, not go on acting on turns nobody sees.
func TestRunLinesStopsWhenOutputFails(t *testing.T) {
	r := newRig(t)
	err := r.s.RunLines(context.Background(), strings.NewReader(lines("review patient_1", "give ampicillin 500 mg IV")), failingWriter{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("RunLines = %v, want the write error", err)
	}
	inputs := []string{}
	for _, rec := range r.s.turns {
		inputs = append(inputs, rec.Input)
	}
	if !slices.Equal(inputs, []string{"review patient_1"}) {
		t.Errorf("turns run after the output failed: %v", inputs)
	}
}

// A store that refuses every write (a full disk) must not look like success: every failed turn
// says NOT_SAVED, the runner stops taking input after a few in a row rather than dropping line
// after line, and its error gives the exit status.
func TestRunLinesStopsAndFailsWhenTurnsCannotBeSaved(t *testing.T) {
	r := newRig(t)
	r.turn("review patient_1")
	r.cfg.Store.Close() // every write now fails
	var out strings.Builder
	lines := strings.Repeat("how are you feeling?\n", 10)
	err := r.s.RunLines(context.Background(), strings.NewReader(lines), &out)
	if err == nil || !strings.Contains(err.Error(), "3 turns in a row could not be saved") {
		t.Fatalf("err = %v, want a stop after 3 unsaved turns", err)
	}
	if n := strings.Count(out.String(), `"event":"turn_end"`); n != 3 {
		t.Errorf("%d turns ran, want the runner to stop after 3", n)
	}
	if !strings.Contains(out.String(), `"code":"NOT_SAVED"`) {
		t.Errorf("no NOT_SAVED event:\n%s", out.String())
	}
}

// Fewer unsaved turns than stop the runner still fail the run when the input ends.
func TestRunLinesReportsUnsavedTurnsAtTheEnd(t *testing.T) {
	r := newRig(t)
	r.turn("review patient_1")
	r.cfg.Store.Close()
	var out strings.Builder
	err := r.s.RunLines(context.Background(), strings.NewReader("any pain?\nany allergies?\n"), &out)
	if err == nil || !strings.Contains(err.Error(), "2 turn(s) could not be saved") {
		t.Fatalf("err = %v, want the two unsaved turns reported", err)
	}
}

// One table of slash commands: /help lists every one, the screen's own included, and the
// session answers each of them, a screen's with where to find it.
func TestEveryCommandIsHelpedAndAnswered(t *testing.T) {
	r := newRig(t)
	help := saidText(r.turn("/help"))
	for _, c := range Commands() {
		// A row of a markdown table, so the chat keeps the columns rather than reflowing them.
		if !strings.Contains(help, "| `"+c.Name) {
			t.Errorf("/help has no table row for %s:\n%s", c.Name, help)
		}
	}
	if errs := only[ErrorEvent](r.turn(CmdExport)); len(errs) != 1 || errs[0].Code != "USAGE" || !strings.Contains(errs[0].Message, "ward export") {
		t.Errorf("%s in ward run: %+v", CmdExport, errs)
	}
	if errs := only[ErrorEvent](r.turn("/nonsense")); len(errs) != 1 || errs[0].Code != "UNKNOWN_COMMAND" {
		t.Errorf("an unknown command: %+v", errs)
	}
}
