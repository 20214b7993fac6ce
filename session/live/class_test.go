package live

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/physio"
)

// The board's reading never waits for a turn: while one holds the Live, Standing answers at once
// with the last reading; an injection waits its turn and is seen at the next reading.
func TestStandingDoesNotWaitForATurn(t *testing.T) {
	_, s := liveShift(t, 2, 0)
	e := NewLive(s, nil)
	first := e.Standing()
	if len(first.Patients) != 2 || first.Max == 0 || first.Patients[0].State == "" {
		t.Fatalf("first standing = %+v", first)
	}
	e.mu.Lock() // a turn is running
	read := make(chan Standing)
	go func() { read <- e.Standing() }()
	select {
	case st := <-read:
		if st.At != first.At {
			t.Error("a standing was read again while a turn ran")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Standing waited for the turn")
	}
	injected := make(chan error)
	go func() {
		injected <- e.Inject(context.Background(), session.Injection{Kind: physio.InjectResult, PatientID: "patient_1", Text: "Hb 70 g/L"})
	}()
	select {
	case err := <-injected:
		t.Fatalf("the injection ran during the turn: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	e.mu.Unlock()
	if err := <-injected; err != nil {
		t.Fatal(err)
	}
	if st := e.Standing(); st.At.Equal(first.At) {
		t.Error("the injection did not renew the standing")
	}
}

// BenchmarkStanding is the board's reading of one trainee's shift an hour in, every patient
// reviewed as the debrief would review them: the board takes one per trainee each second.
func BenchmarkStanding(b *testing.B) {
	for _, n := range []int{1, 5, 20} {
		b.Run(fmt.Sprintf("%d_patients", n), func(b *testing.B) {
			_, s := liveShift(b, n, 0)
			s.Turn(context.Background(), "/wait 60m", func(session.Event) {})
			e := NewLive(s, nil)
			e.mu.Lock()
			defer e.mu.Unlock()
			b.ReportAllocs()
			for b.Loop() {
				_ = e.readStanding()
			}
		})
	}
}

// A trainee's turns and the instructor's injections and readings, all at once, never run
// together: each turn and each injection is whole in the stored conversation (-race checks the rest).
func TestInjectBesideRunningTurns(t *testing.T) {
	_, s := liveShift(t, 1, 0)
	e := NewLive(s, nil)
	if err := e.Switch(context.Background(), "patient_1"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		for i := range 5 {
			if err := e.Inject(context.Background(), session.Injection{Kind: session.InjectResult, PatientID: "patient_1", Text: fmt.Sprintf("CRP %d", 100+i)}); err != nil {
				done <- err
				return
			}
			_ = e.Standing()
		}
		done <- nil
	}()
	for range 5 {
		drain(e.Submit(context.Background(), "how are you feeling?"))
		_ = e.Snapshot()
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	msgs, _, err := s.Recent("patient_1", 100)
	if err != nil {
		t.Fatal(err)
	}
	results, asked := 0, 0
	for i, m := range msgs {
		switch {
		case m.Agent == "Lab":
			results++
		case m.Role == "user" && strings.HasPrefix(m.Content, "/"): // a command, answered by ward
		case m.Role == "user":
			asked++
			if i+1 >= len(msgs) || msgs[i+1].Agent != "Patient" {
				t.Errorf("a turn was split: %q is followed by %+v", m.Content, msgs[min(i+1, len(msgs)-1)])
			}
		}
	}
	if results != 5 || asked != 5 {
		t.Errorf("stored %d results and %d questions, want 5 and 5", results, asked)
	}
}
