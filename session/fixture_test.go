package session

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
)

// TestWriteShiftFixture writes a shift of WARD_FIXTURE_PATIENTS patients (default 100), each
// admitted through the session and holding WARD_FIXTURE_MESSAGES stored messages (default 1,000),
// to the file WARD_FIXTURE_DB. It is how .ci/first-frame.sh builds the database it starts the
// real binary on; without WARD_FIXTURE_DB it is skipped.
func TestWriteShiftFixture(t *testing.T) {
	path := os.Getenv("WARD_FIXTURE_DB")
	if path == "" {
		t.Skip("set WARD_FIXTURE_DB to write the fixture")
	}
	patients, messages := envInt(t, "WARD_FIXTURE_PATIENTS", 100), envInt(t, "WARD_FIXTURE_MESSAGES", 1000)
	store, err := persist.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, err := Start(Config{Store: store, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for p := 1; p <= patients; p++ {
		s.Turn(context.Background(), fmt.Sprintf("/admit patient_%d", p), func(Event) {})
	}
	s.Turn(context.Background(), "/wait 10m", func(Event) {})
	at := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	for p := 1; p <= patients; p++ {
		msgs := make([]memory.Message, messages)
		for i := range msgs {
			msgs[i] = memory.Message{Role: "user", Content: fmt.Sprintf("checking airway and breathing (%d)", i), At: at.Add(time.Duration(i) * time.Second)}
			if i%2 == 1 {
				msgs[i].Role, msgs[i].Agent, msgs[i].Content = "assistant", "Patient", fmt.Sprintf("It's *hard* to breathe (%d).", i)
			}
		}
		if err := store.Update(s.ID(), func(tx *persist.Tx) error { return tx.Append(fmt.Sprintf("patient_%d", p), msgs...) }); err != nil {
			t.Fatal(err)
		}
	}
}

func envInt(t *testing.T, name string, fallback int) int {
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil || n < 0 {
		t.Fatalf("%s=%q is not a count", name, v)
	}
	return n
}
