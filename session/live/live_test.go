package live

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/scenario/scenariotest"
)

// liveShift is a real session on a bbolt file in a temp dir, with the offline backend, holding
// patients admitted through the session and perPatient stored messages each.
func liveShift(tb testing.TB, patients, perPatient int) (session.Config, *session.Session) {
	tb.Helper()
	store, err := persist.Open(filepath.Join(tb.TempDir(), "ward.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	lib, err := scenariotest.FullWard() // a shift gives no two patients one case: the built-in cases fill 36 beds
	if err != nil {
		tb.Fatal(err)
	}
	cfg := session.Config{Store: store, Backend: offline.New(), Scenarios: lib}
	s, err := session.Start(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	for p := 1; p <= patients; p++ {
		s.Turn(context.Background(), fmt.Sprintf("/admit patient_%d", p), func(session.Event) {})
	}
	if got := len(s.Summaries()); got != patients {
		tb.Fatalf("%d patients admitted, want %d", got, patients)
	}
	at := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	for p := 1; p <= patients && perPatient > 0; p++ {
		msgs := make([]memory.Message, perPatient)
		for i := range msgs {
			msgs[i] = memory.Message{Role: "user", Content: fmt.Sprintf("checking airway and breathing (%d)", i), At: at.Add(time.Duration(i) * time.Second)}
			if i%2 == 1 {
				msgs[i].Role, msgs[i].Agent, msgs[i].Content = "assistant", "Patient", fmt.Sprintf("It's *hard* to breathe (%d).", i)
			}
		}
		err := store.Update(s.ID(), func(tx *persist.Tx) error { return tx.Append(fmt.Sprintf("patient_%d", p), msgs...) })
		if err != nil {
			tb.Fatal(err)
		}
	}
	s, err = session.Resume(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg, s
}

func drain(ch <-chan Update) []Update {
	var out []Update
	for ev := range ch {
		out = append(out, ev)
	}
	return out
}

func TestLiveKeyboardSwitchRecordsDecision(t *testing.T) {
	_, s := liveShift(t, 2, 0)
	e := NewLive(s, nil)
	if err := e.Switch(context.Background(), "patient_2"); err != nil {
		t.Fatal(err)
	}
	if got := e.Snapshot().Patient.ID; got != "patient_2" {
		t.Fatalf("header shows %q after switching to patient_2", got)
	}
	tr, ok := e.Trace(0)
	if !ok || tr.Analyzer.Action != "SWITCH_EXISTING" || len(tr.Calls) != 0 {
		t.Errorf("keyboard switch trace = %+v, want SWITCH_EXISTING and no LLM call", tr)
	}
}

func TestLiveStreamsUnderOneID(t *testing.T) {
	_, s := liveShift(t, 1, 0)
	e := NewLive(s, nil)
	if err := e.Switch(context.Background(), "patient_1"); err != nil {
		t.Fatal(err)
	}
	events := drain(e.Submit(context.Background(), "how are you feeling?"))
	ids := map[string]bool{}
	finished := ""
	for _, ev := range events {
		switch {
		case ev.Kind == UpdateDelta:
			ids[ev.MessageID] = true
		case ev.Kind == UpdateChanged && ev.MessageID != "":
			finished = ev.MessageID
		}
	}
	if len(ids) != 1 || !ids[finished] {
		t.Fatalf("deltas under %v, finished message %q: want one ID for both", ids, finished)
	}
	chat := e.Snapshot().Chat
	if last := chat[len(chat)-1]; last.ID != finished || last.Agent != "Patient" {
		t.Errorf("the stored reply is %+v, want ID %q from the Patient", last, finished)
	}
}

func TestLiveKeepsUnstoredNotesInOrder(t *testing.T) {
	_, s := liveShift(t, 0, 0)
	e := NewLive(s, nil)
	drain(e.Submit(context.Background(), "review patient_7"))
	chat := e.Snapshot().Chat
	if len(chat) < 3 || chat[0].Content != "review patient_7" || chat[1].Agent != "ward" || chat[len(chat)-1].Agent != "Patient" {
		t.Errorf("want the line that admitted them, the admission note, then the patient's first words, got %+v", chat)
	}
}

// BenchmarkLiveSwitch is a keyboard patient switch through the real session, from the key's
// Switch to the snapshot the screen draws. A switch reads one page of the history from its end,
// so its cost must not grow with the history's length.
func BenchmarkLiveSwitch(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("%d_messages", n), func(b *testing.B) {
			_, s := liveShift(b, 2, n)
			e := NewLive(s, nil)
			ids := []string{"patient_1", "patient_2"}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := e.Switch(context.Background(), ids[i%2]); err != nil {
					b.Fatal(err)
				}
				_ = e.Snapshot()
			}
		})
	}
}

// A switch shows the newest page only; LoadOlder brings the pages before it, oldest last.
func TestLivePagesALongHistory(t *testing.T) {
	_, s := liveShift(t, 1, 2*chatPage+10)
	e := NewLive(s, nil)
	if err := e.Switch(context.Background(), "patient_1"); err != nil {
		t.Fatal(err)
	}
	v := e.Snapshot()
	if len(v.Chat) != chatPage || !v.ChatMore {
		t.Fatalf("after a switch: %d messages, more %v; want the newest %d and more", len(v.Chat), v.ChatMore, chatPage)
	}
	newest := v.Chat[len(v.Chat)-1].ID
	for range 2 {
		if err := e.LoadOlder(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	v = e.Snapshot()
	all := 2 + 2*chatPage + 10 // the /admit line and ward's note of the admission, then the history
	if len(v.Chat) != all || v.ChatMore {
		t.Errorf("after two pages back: %d messages, more %v; want all %d and no more", len(v.Chat), v.ChatMore, all)
	}
	if v.Chat[len(v.Chat)-1].ID != newest {
		t.Errorf("the newest message changed from %s to %s", newest, v.Chat[len(v.Chat)-1].ID)
	}
}

// BenchmarkResumeFirstSnapshot opens a shift of 100 patients × 1,000 messages and builds the
// first snapshot a screen draws: resume and the first view.
func BenchmarkResumeFirstSnapshot(b *testing.B) {
	cfg, s := liveShift(b, 100, 1000)
	if err := NewLive(s, nil).Switch(context.Background(), "patient_50"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := session.Resume(cfg)
		if err != nil {
			b.Fatal(err)
		}
		_ = NewLive(s, nil).Snapshot()
	}
}

func TestLiveShowsTheResumedPatient(t *testing.T) {
	cfg, s := liveShift(t, 2, 0)
	if err := NewLive(s, nil).Switch(context.Background(), "patient_2"); err != nil {
		t.Fatal(err)
	}
	resumed, err := session.Resume(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := NewLive(resumed, nil).Snapshot().Patient.ID; got != "patient_2" {
		t.Errorf("after a restart the header shows %q, want the registry's active patient_2", got)
	}
}

// The inspector says what else happened to a call, so a developer can see why the prompt is
// what it is: a retry, a budget cut, memory the window made redundant, an error.
func TestCallNotesExplainThePrompt(t *testing.T) {
	var c session.CallRecord
	if notes := llmCall(c).Notes; len(notes) != 0 {
		t.Fatalf("a plain call has notes: %v", notes)
	}
	c.Trace.Retry, c.Trace.Shrunk, c.Recall.Shown, c.Trace.Error = "empty answer", []string{"window 16→8"}, make([]memory.Selected, 3), "stalled"
	c.Held = "1 citation(s) of passages it was not given were removed"
	c.Retrieved = []knowledge.Passage{{N: 1, Title: "Anaphylaxis", Section: "Adrenaline", Score: 0.5}}
	want := []string{
		"retry: empty answer",
		"cut to fit num_ctx: window 16→8",
		"memory: 3 recalled items not repeated, the window shows them",
		"error: stalled",
		"held to the record: 1 citation(s) of passages it was not given were removed",
		"knowledge [1] Anaphylaxis › Adrenaline — , score 0.5000",
	}
	if got := llmCall(c).Notes; !slices.Equal(got, want) {
		t.Fatalf("notes\n got %q\nwant %q", got, want)
	}
}

// The start dialog replaces the empty shift ward opened with; that shift must not linger in the
// database. A shift something happened in is never removed.
func TestStartDialogDropsOnlyAnUntouchedShift(t *testing.T) {
	for _, touched := range []bool{false, true} {
		store, err := persist.Open(filepath.Join(t.TempDir(), "ward.db"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := session.Config{Store: store, Backend: offline.New()}
		opened, err := session.Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if touched {
			opened.Turn(context.Background(), "/admit patient_1", func(session.Event) {})
		}
		e := NewLive(opened, func(shift, _ string) (*session.Session, error) {
			fresh := cfg
			fresh.Shift = shift
			return session.Start(fresh)
		})
		if err := e.Start(context.Background(), "quiet-night", ""); err != nil {
			t.Fatal(err)
		}
		err = store.View(opened.ID(), func(*persist.Tx) error { return nil })
		if kept := err == nil; kept != touched {
			t.Errorf("touched %v: the opening shift kept %v (%v)", touched, kept, err)
		}
		store.Close()
	}
}

func TestLiveClearPreviewAndTranscript(t *testing.T) {
	_, s := liveShift(t, 2, 6)
	e := NewLive(s, nil)
	p, err := e.ClearPreview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Patients != 2 || p.Messages < 12 || p.Archive != 1 {
		t.Fatalf("preview %+v, want 2 patients, at least 12 messages, archive 1", p)
	}
	if err := e.Switch(context.Background(), "patient_2"); err != nil {
		t.Fatal(err)
	}
	c, err := e.Transcript(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.PatientID != "patient_2" || len(c.Messages) < 6 || !strings.Contains(c.Markdown(), "It's *hard* to breathe (5).") {
		t.Fatalf("transcript of %s, %d messages:\n%s", c.PatientID, len(c.Messages), c.Markdown())
	}
}

func TestLiveErrorsCarryTheirCode(t *testing.T) {
	_, s := liveShift(t, 1, 0)
	e := NewLive(s, nil)
	var codes []string
	for _, u := range drain(e.Submit(context.Background(), "/speed 50")) {
		if u.Kind == UpdateError {
			codes = append(codes, u.Code)
		}
	}
	if strings.Join(codes, ",") != "USAGE" {
		t.Fatalf("error codes %q, want USAGE", codes)
	}
}

// The start dialog may stay open for minutes; the shift chosen starts its clock at zero.
func TestLiveStartBeginsTheClockAtTheChoice(t *testing.T) {
	cfg, s := liveShift(t, 0, 0)
	e := NewLive(s, func(string, string) (*session.Session, error) { return session.Start(cfg) })
	e.lastTick = time.Now().Add(-10 * time.Minute) // the dialog was open for ten minutes
	if err := e.Start(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
	if clock := e.Snapshot().Clock; clock > 5*time.Second {
		t.Fatalf("the new shift starts at %s", clock)
	}
}

// A shift the dialog starts shows its own conversation from the start: a shift drawn from the
// trainee's progress says there why each patient is on it.
func TestLiveStartShowsTheNewShiftsOwnConversation(t *testing.T) {
	cfg, s := liveShift(t, 0, 0)
	said := memory.Message{Role: "assistant", Agent: memory.SystemAgent, Content: "This shift was drawn from your progress", At: time.Now()}
	e := NewLive(s, func(string, string) (*session.Session, error) {
		next, err := session.Start(cfg)
		if err == nil {
			err = cfg.Store.Update(next.ID(), func(tx *persist.Tx) error { return tx.Append("", said) })
		}
		return next, err
	})
	if err := e.Start(context.Background(), "", ""); err != nil {
		t.Fatal(err)
	}
	chat := e.Snapshot().Chat
	if len(chat) != 1 || !strings.Contains(chat[0].Content, said.Content) {
		t.Fatalf("the new shift's chat: %+v", chat)
	}
}

// A repaint after a turn reads from the store only what it does not hold: the newest message it
// holds, to see the conversation still continues it, and any stored after it; the whole page
// again when the newest moved to another conversation and another was appended in its place (as
// many as before). Each time the chat is what a fresh screen reads.
func TestLiveReadsTheHistoryAgainOnlyWhenItChanged(t *testing.T) {
	cfg, s := liveShift(t, 2, 10)
	e := NewLive(s, nil)
	if err := e.Switch(context.Background(), "patient_1"); err != nil {
		t.Fatal(err)
	}
	repaint := func() (read int) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.chat.valid = false
		read = e.readChat(e.s.Active())
		e.refresh()
		return read
	}
	contents := func(chat []ChatMessage) []string {
		var out []string
		for _, m := range chat {
			out = append(out, m.Content)
		}
		return out
	}
	store := func(what string, write func(tx *persist.Tx) error) {
		if err := cfg.Store.Update(s.ID(), write); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	line := func(text string) memory.Message {
		return memory.Message{Role: "user", Content: text, At: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}
	}
	page := 2 + 10 // the /admit line and ward's note of the admission, then the history
	steps := []struct {
		what  string
		write func(tx *persist.Tx) error
		read  int
	}{
		{"nothing stored", nil, 1},
		{"a line appended", func(tx *persist.Tx) error { return tx.Append("patient_1", line("is the oxygen on?")) }, 2},
		{"nothing stored since", nil, 1},
		{"three lines appended", func(tx *persist.Tx) error {
			return tx.Append("patient_1", line("sats?"), line("pulse?"), line("pressure?"))
		}, 4},
		{"the newest moved away and another in its place", func(tx *persist.Tx) error {
			if err := tx.MoveLast("patient_1", "patient_2"); err != nil {
				return err
			}
			return tx.Append("patient_1", line("is the mask on?"))
		}, 1 + 1 + page + 4}, // the check, then Newest and the whole page
	}
	for _, step := range steps {
		if step.write != nil {
			store(step.what, step.write)
		}
		if got := repaint(); got != step.read {
			t.Errorf("%s: read %d messages, want %d", step.what, got, step.read)
		}
		fresh := NewLive(s, nil)
		if got, want := contents(e.Snapshot().Chat), contents(fresh.Snapshot().Chat); !slices.Equal(got, want) {
			t.Errorf("%s: the chat shows\n%q\na fresh screen\n%q", step.what, got, want)
		}
	}
}
