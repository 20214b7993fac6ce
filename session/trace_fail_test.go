package session

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
)

// spaceFor takes room bytes, then fails every write, as a full disk does.
type spaceFor struct {
	bytes.Buffer
	room int
}

func (d *spaceFor) Write(p []byte) (int, error) {
	if d.Len()+len(p) > d.room {
		return 0, errors.New("no space left on device")
	}
	return d.Buffer.Write(p)
}

// A trace that stops being written is reported once, in the turn where it failed, and the shift
// goes on: the trainee is told, not told again at every turn.
func TestATraceFailureIsReportedOnce(t *testing.T) {
	disk := &spaceFor{room: 4096}
	r := newRigWith(t, func(c *Config) { c.Trace = llm.NewTraceWriter(disk) })
	reports := 0
	for _, line := range []string{"review patient_1", "any allergies?", "how is the pain?", "/vitals", "any allergies?"} {
		for _, e := range r.turn(line) {
			if err, ok := e.(ErrorEvent); ok && err.Code == "TRACE" {
				reports++
				if !strings.Contains(err.Message, "no space left on device") || !strings.Contains(err.Message, "goes on untraced") {
					t.Errorf("the report: %q", err.Message)
				}
			}
		}
	}
	if reports != 1 || r.cfg.Trace.Err() == nil {
		t.Fatalf("%d reports of the failed trace (err %v), want 1", reports, r.cfg.Trace.Err())
	}
	if d := r.dump(); len(d.Histories["patient_1"]) < 8 {
		t.Fatalf("the shift did not go on: %d messages", len(d.Histories["patient_1"]))
	}
}
