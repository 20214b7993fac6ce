package live

import (
	"context"
	"fmt"
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
	if st := e.Standing(); st.At == first.At {
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
