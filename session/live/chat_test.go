package live

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"pgregory.net/rapid"
)

// Whatever turns, switches, pages and stored messages come, the chat a screen holds after a
// repaint is what reading its page whole from the store gives: reading only what is new
// invents nothing and loses nothing.
func TestLiveChatIsTheStoresPageOverRandomTurns(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cfg, s := liveShift(t, 2, rapid.SampledFrom([]int{0, 3, chatPage - 2, chatPage + 5}).Draw(rt, "stored"))
		e := NewLive(s, nil)
		ctx := context.Background()
		at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
		stored := func(n int) []memory.Message {
			msgs := make([]memory.Message, n)
			for i := range msgs {
				at = at.Add(time.Second)
				msgs[i] = memory.Message{Role: "user", Content: fmt.Sprintf("line at %s", at.Format(time.TimeOnly)), At: at}
			}
			return msgs
		}
		write := func(fn func(tx *persist.Tx) error) {
			if err := cfg.Store.Update(s.ID(), fn); err != nil {
				rt.Fatal(err)
			}
			e.mu.Lock()
			e.chat.valid = false // as the turn that stores them tells the screen
			e.mu.Unlock()
		}
		other := func(id string) string {
			return map[string]string{"patient_1": "patient_2", "patient_2": "patient_1"}[id]
		}
		for step := range rapid.IntRange(1, 12).Draw(rt, "steps") {
			active := e.s.Active()
			switch rapid.IntRange(0, 5).Draw(rt, fmt.Sprintf("action %d", step)) {
			case 0:
				drain(e.Submit(ctx, rapid.SampledFrom([]string{"how are you feeling?", "/vitals", "/wait 1m", "switch to patient_2", "review patient_1"}).Draw(rt, "line")))
			case 1:
				if err := e.Switch(ctx, rapid.SampledFrom([]string{"patient_1", "patient_2"}).Draw(rt, "to")); err != nil {
					rt.Fatal(err)
				}
			case 2:
				n := rapid.IntRange(1, chatPage+10).Draw(rt, "appended")
				write(func(tx *persist.Tx) error { return tx.Append(active, stored(n)...) })
			case 3: // the newest moved to another conversation, and another stored in its place
				if _, n, _ := e.s.Newest(active); active != "" && n > 0 {
					write(func(tx *persist.Tx) error {
						if err := tx.MoveLast(active, other(active)); err != nil {
							return err
						}
						return tx.Append(active, stored(1)...)
					})
				}
			case 4:
				if err := e.LoadOlder(ctx); err != nil {
					rt.Fatal(err)
				}
			case 5:
				write(func(tx *persist.Tx) error { return tx.Append(other(active), stored(2)...) })
			}
			e.Snapshot()
			e.mu.Lock()
			held, more, want, patient := e.chat.msgs, e.chat.more, e.chat.want, e.chat.patient
			e.mu.Unlock()
			page, pageMore, err := e.s.Recent(patient, want)
			if err != nil {
				rt.Fatal(err)
			}
			if !reflect.DeepEqual(held, page) || more != pageMore {
				rt.Fatalf("step %d: the screen holds %d messages (more %v) of %s; its page read whole is %d (more %v)",
					step, len(held), more, patient, len(page), pageMore)
			}
		}
	})
}

// BenchmarkLiveChatAfterAStoredLine is a screen holding a page of a long conversation catching
// up with one line stored after it, as it does at each stored line of a turn.
func BenchmarkLiveChatAfterAStoredLine(b *testing.B) {
	cfg, s := liveShift(b, 1, 1000)
	e := NewLive(s, nil)
	if err := e.Switch(context.Background(), "patient_1"); err != nil {
		b.Fatal(err)
	}
	line := []memory.Message{{Role: "user", Content: "is the oxygen on?", At: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := cfg.Store.Update(s.ID(), func(tx *persist.Tx) error { return tx.Append("patient_1", line...) }); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		e.mu.Lock()
		e.chat.valid = false
		e.refresh()
		e.mu.Unlock()
	}
}
