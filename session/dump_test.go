package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/records"
)

// TestWriteDumpPrintsWhatDumpPrints: the streamed dump is byte for byte the document Dump reads
// whole, encoded as `ward dump` encoded it, for the instructor and for a trainee, on a real
// store (plain and encrypted) with histories, memory, entities, engines, an archive and text JSON
// must escape.
func TestWriteDumpPrintsWhatDumpPrints(t *testing.T) {
	shift := []string{
		"/admit patient_2 sepsis-urosepsis", "/admit patient_3 asthma-exacerbation", `is the pain <worse> & "sharp"?`,
		"give salbutamol 5 mg nebulised", "/wait 5m", "switch to patient_2", "how are you feeling?",
	}
	cleared := []string{"/admit patient_1 anaphylaxis", "checking vitals", "any allergies?", "/wait 2m", "/clear"}
	encrypted := func(c *Config) {
		if err := errors.Join(c.Store.Protect([]byte("the night sister holds the keys")), c.Store.Enrol("alice", []byte("alice on the night shift"))); err != nil {
			t.Fatal(err)
		}
	}
	for name, tc := range map[string]struct {
		lines []string
		store func(*Config)
	}{
		"no archive":            {shift, func(*Config) {}},
		"an archive":            {append(cleared, shift...), func(*Config) {}},
		"an archive, encrypted": {append(cleared, shift...), encrypted},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRigWith(t, tc.store)
			for _, line := range tc.lines {
				r.turn(line)
			}
			compareDumps(t, r)
		})
	}
}

func compareDumps(t *testing.T, r *rig) {
	whole := r.dump()
	if len(whole.Histories) < 2 || len(whole.Sim) != 2 {
		t.Fatalf("the shift is not what the test needs: %d histories, %d engines", len(whole.Histories), len(whole.Sim))
	}
	for _, trainee := range []bool{false, true} {
		doc := whole
		if trainee {
			doc = whole.ForTrainee()
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := records.WriteDump(&got, r.store, r.s.cfg.Scenarios, trainee); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("trainee=%v: the streamed dump differs from the whole one at byte %d:\n%s", trainee, firstDiff(got.String(), want.String()), around(got.String(), want.String()))
		}
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(got, want string) string {
	i := firstDiff(got, want)
	from := max(0, strings.LastIndex(want[:i], "\n")-200)
	return "got:  …" + got[from:min(len(got), i+120)] + "\nwant: …" + want[from:min(len(want), i+120)]
}

// BenchmarkDump prints the dump of a shift of 100 patients × 1,000 messages to io.Discard, as
// `ward dump` printed it before (Dump read whole, then encoded whole: "whole") and as it prints
// it now (WriteDump, a message at a time: "stream"). B/op is what each holds and churns.
func BenchmarkDump(b *testing.B) {
	store, _ := bigShift(b, 100, 1000, false)
	lib, err := LoadLibrary("")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			doc, err := records.Dump(store, lib)
			enc := json.NewEncoder(io.Discard)
			enc.SetIndent("", "  ")
			if err == nil {
				err = enc.Encode(doc)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := records.WriteDump(io.Discard, store, lib, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}
