package ui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/records"
)

// fakeShift is a small in-memory ward: a few patients with histories, a
// clock that only moves when a test says so, and turns whose events a
// test scripts.
type fakeShift struct {
	mu        sync.Mutex
	active    string
	roster    []live.RosterEntry
	patients  map[string]live.Patient
	histories map[string][]live.ChatMessage
	vitals    map[string][]live.VitalSeries
	clock     time.Duration
	backend   string
	model     string

	decisions []string // "SWITCH_EXISTING patient_2", as the registry would record them
	submitted []string
	retries   int
	started   []string
	traces    []live.TurnTrace

	// reply is what a turn streams, token by token; "" streams nothing.
	reply string
	// replyErr, when set, ends every turn with this error instead, under replyCode (LLM_EMPTY
	// when empty).
	replyErr, replyCode string
	// fails maps a line to the error its turn ends with, after the line is stored.
	fails map[string]live.Update
	// ask, when its Kind is UpdateConfirm, is what the next turn answers instead of a reply.
	ask live.Update
	// archives counts the clears, for the archive number ClearPreview gives.
	archives int
	// page, when set, is how many messages a snapshot shows at first; LoadOlder adds as many.
	page  int
	shown int
	// gate, when set, holds each turn after the user's text is stored
	// until the test closes it.
	gate chan struct{}
	// sounded counts the alarms that have sounded, as the session's snapshot does.
	sounded int
}

// newFakeWard returns three patients; patient_1 is active.
func newFakeWard() *fakeShift {
	f := &fakeShift{
		active:    "patient_1",
		patients:  map[string]live.Patient{},
		histories: map[string][]live.ChatMessage{},
		vitals:    map[string][]live.VitalSeries{},
		clock:     42*time.Minute + 5*time.Second,
		backend:   "offline",
		reply:     "I feel **dizzy**, and my throat is tight.",
	}
	add := func(p live.Patient, trend live.Trend, checked time.Duration, alert bool, hr, spo2 []float64) {
		f.patients[p.ID] = p
		e := live.RosterEntry{ID: p.ID, Name: p.Name, NEWS2: p.NEWS2, Trend: trend, LastChecked: checked}
		if alert {
			e.Alert = live.Alert{PatientID: p.ID, Level: live.AlertUrgent, Raised: f.clock,
				Text: "NEWS2 3 — RR 22, SpO2 92% on air, BP 104/66, HR 91, temp 38.4, GCS 15. Urgent review please."}
		}
		f.roster = append(f.roster, e)
		f.vitals[p.ID] = []live.VitalSeries{
			series("HR", "bpm", hr), series("RR", "/min", []float64{18, 20, 22, 24}),
			series("SpO2", "%", spo2), series("SBP", "mmHg", []float64{118, 104, 96, 88}),
		}
		f.histories[p.ID] = []live.ChatMessage{
			{ID: p.ID + "-1", Role: "user", Content: "review " + p.ID},
			{ID: p.ID + "-2", Role: "assistant", Agent: "patient", Content: "I'm " + p.Name + ". It came on after lunch.\n\n- itchy\n- short of breath"},
			{ID: p.ID + "-3", Role: "system", Content: "vitals measured"},
		}
	}
	add(live.Patient{ID: "patient_1", Name: "Ada Byron", Age: 34, Sex: "F", Bed: "3", Presentation: "itchy rash and wheeze after lunch",
		NEWS2:     live.Score{Known: true, Value: 7, Band: live.BandHigh, Text: "NEWS2 7 high"},
		Found:     []string{"capillary glucose 5.2 mmol/L"},
		Allergies: []string{"peanuts (anaphylaxis)", "penicillin (rash)"}},
		live.TrendUp, 40*time.Minute, false, []float64{96, 104, 112, 121}, []float64{97, 95, 93, 91})
	add(live.Patient{ID: "patient_2", Name: "Ben Okafor", Age: 67, Sex: "M", Bed: "5", Presentation: "cough and fever for three days",
		NEWS2: live.Score{Known: true, Value: 3, Band: live.BandLowMedium, Text: "NEWS2 3 low-medium"}},
		live.TrendFlat, 12*time.Minute, true, []float64{88, 90, 89, 91}, []float64{92, 92, 93, 93})
	add(live.Patient{ID: "patient_3", Name: "Cleo Park", Age: 8, Sex: "F", Bed: "9", Presentation: "wheezy after football",
		NEWS2: live.Score{Known: true, Value: 1, Band: live.BandLow, Text: "NEWS2 1 low"}},
		live.TrendDown, -1, false, []float64{120, 118, 112, 104}, []float64{94, 95, 96, 97})
	return f
}

func series(name, unit string, values []float64) live.VitalSeries {
	s := live.VitalSeries{Name: name, Unit: unit}
	for i, v := range values {
		s.Points = append(s.Points, live.VitalPoint{At: time.Duration(30+3*i) * time.Minute, Value: v})
	}
	return s
}

func (f *fakeShift) Snapshot() live.ViewState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return live.ViewState{
		Patient:  f.patients[f.active],
		Roster:   append([]live.RosterEntry(nil), f.roster...),
		Vitals:   f.vitals[f.active],
		Chat:     f.chat(),
		ChatMore: len(f.chat()) < len(f.histories[f.active]),
		Clock:    f.clock,
		Speed:    1,
		Backend:  f.backend,
		Model:    f.model,
		Last:     live.TurnStats{Latency: 1240 * time.Millisecond, PromptTokens: 812, OutputTokens: 96},
		Alerts:   f.alerts(),
		Sounded:  f.sounded,
	}
}

// alerts are the roster's waiting alerts, the most urgent first, as the session lists them.
func (f *fakeShift) alerts() []live.Alert {
	var out []live.Alert
	for _, e := range f.roster {
		if e.Alert.Level != live.AlertNone {
			out = append(out, e.Alert)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Level > out[j].Level })
	return out
}

func (f *fakeShift) Switch(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.patients[id]; !ok {
		return fmt.Errorf("no patient %s on the roster", id)
	}
	f.decisions = append(f.decisions, "SWITCH_EXISTING "+id)
	f.active = id
	return nil
}

// chat is the active history as paged: the newest f.shown messages when paging is on.
func (f *fakeShift) chat() []live.ChatMessage {
	h := f.histories[f.active]
	if f.page == 0 {
		return h
	}
	return h[max(len(h)-max(f.shown, f.page), 0):]
}

func (f *fakeShift) LoadOlder(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shown = max(f.shown, f.page) + f.page
	return nil
}

func (f *fakeShift) ClearPreview(context.Context) (live.ClearPreview, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := live.ClearPreview{Patients: len(f.roster), Archive: f.archives + 1}
	for _, h := range f.histories {
		p.Messages += len(h)
	}
	return p, nil
}

// Transcript is the active history with a fixed time per message, as the session's would be.
func (f *fakeShift) Transcript(context.Context) (records.Conversation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := records.Conversation{PatientID: f.active, Name: f.patients[f.active].Name}
	at := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	for i, m := range f.histories[f.active] {
		speaker := m.Agent
		if m.Role == "user" {
			speaker = "You"
		}
		c.Messages = append(c.Messages, records.TranscriptMessage{At: at.Add(time.Duration(i) * time.Minute),
			Sim: fmt.Sprintf("T+%02d:00", i), Speaker: speaker, Role: m.Role, Text: m.Content})
	}
	return c, nil
}

func (f *fakeShift) Start(_ context.Context, shift, trainee string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = append(f.started, shift+" for "+trainee)
	return nil
}

func (f *fakeShift) Trace(back int) (live.TurnTrace, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if back < 0 || back >= len(f.traces) {
		return live.TurnTrace{}, false
	}
	return f.traces[len(f.traces)-1-back], true
}

func (f *fakeShift) Submit(ctx context.Context, text string) <-chan live.Update {
	f.mu.Lock()
	f.submitted = append(f.submitted, text)
	f.mu.Unlock()
	return f.turn(ctx, text)
}

func (f *fakeShift) Retry(ctx context.Context) <-chan live.Update {
	f.mu.Lock()
	f.retries++
	f.mu.Unlock()
	return f.turn(ctx, "")
}

// turn stores the user's text, streams the reply word by word and stores
// it, stopping early when ctx is cancelled.
func (f *fakeShift) turn(ctx context.Context, text string) <-chan live.Update {
	events := make(chan live.Update)
	go func() {
		defer close(events)
		f.mu.Lock()
		id := fmt.Sprintf("%s-%d", f.active, len(f.histories[f.active])+1)
		if text != "" {
			f.appendLocked(live.ChatMessage{ID: id + "u", Role: "user", Content: text})
		}
		if who, ok := strings.CutPrefix(text, "review "); ok && f.patients[who].ID != "" {
			f.decisions = append(f.decisions, "SWITCH_EXISTING "+who) // the line stays where it was typed
			f.active = who
		}
		reply, replyErr, replyCode, ask, gate := f.reply, f.replyErr, f.replyCode, f.ask, f.gate
		if failed, ok := f.fails[text]; ok {
			replyErr, replyCode = failed.Text, failed.Code
		}
		f.ask = live.Update{} // asked once
		f.mu.Unlock()
		if !send(ctx, events, live.Update{Kind: live.UpdateChanged}) {
			return
		}
		if gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
		}
		if replyCode == "" {
			replyCode = "LLM_EMPTY"
		}
		if replyErr != "" {
			send(ctx, events, live.Update{Kind: live.UpdateError, Text: replyErr, Code: replyCode})
			return
		}
		if ask.Kind == live.UpdateConfirm {
			send(ctx, events, ask)
			return
		}
		var sent strings.Builder
		for _, tok := range tokens(reply) {
			if !send(ctx, events, live.Update{Kind: live.UpdateDelta, MessageID: id, Agent: "patient", Text: tok}) {
				return
			}
			sent.WriteString(tok)
		}
		f.mu.Lock()
		f.appendLocked(live.ChatMessage{ID: id, Role: "assistant", Agent: "patient", Content: sent.String()})
		f.mu.Unlock()
		send(ctx, events, live.Update{Kind: live.UpdateChanged, MessageID: id})
	}()
	return events
}

func (f *fakeShift) appendLocked(msg live.ChatMessage) {
	// A new slice each time, as the UI may still hold the old one.
	h := f.histories[f.active]
	f.histories[f.active] = append(h[:len(h):len(h)], msg)
}

func send(ctx context.Context, events chan<- live.Update, ev live.Update) bool {
	select {
	case events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// tokens splits text the way a model streams it: words with their spaces.
func tokens(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text[1:], ' ')
		if i < 0 {
			return append(out, text)
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

func (f *fakeShift) recorded() (decisions, submitted []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.decisions...), append([]string(nil), f.submitted...)
}

func sampleTrace() live.TurnTrace {
	return live.TurnTrace{
		Turn:  3,
		Input: "give 0.5 mg epinephrine IM",
		Analyzer: live.AnalyzerTrace{Input: "give 0.5 mg epinephrine IM", Action: "UNCHANGED", PatientID: "patient_1",
			Source: "rules", Reasoning: "no patient named; the active patient stays", Elapsed: 300 * time.Microsecond},
		Calls: []live.LLMCall{{
			Agent: "patient", Model: "llama3.2", NumPredict: 400,
			Sections: []live.PromptSection{
				{Name: "static", Tokens: 412, Messages: []live.PromptMessage{{Role: "system", Content: "You are Ada Byron, 34."}}},
				{Name: "window", Tokens: 300, Messages: []live.PromptMessage{{Role: "user", Content: "how do you feel?"}, {Role: "assistant", Content: "Dizzy."}}},
				{Name: "dynamic", Tokens: 120, Messages: []live.PromptMessage{{Role: "system", Content: "HR 121, SpO2 91%"}}},
				{Name: "memory", Tokens: 80, Messages: []live.PromptMessage{{Role: "system", Content: "allergy: peanuts (anaphylaxis)", Rule: "safety-critical"}}},
			},
			Metrics: live.CallMetrics{PromptEvalCount: 912, PromptEvalDuration: 12 * time.Millisecond, EvalCount: 96,
				EvalDuration: 1600 * time.Millisecond, TotalDuration: 1700 * time.Millisecond, CacheHit: true},
			Reply: "My chest feels tight.",
		}},
	}
}
