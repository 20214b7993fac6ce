package llm

import (
	"bytes"
	"errors"
	"testing"
)

// fullDisk takes the first room bytes whole, then a part of the write that overflows, and fails.
type fullDisk struct {
	bytes.Buffer
	room int
}

var errFull = errors.New("no space left on device")

func (d *fullDisk) Write(p []byte) (int, error) {
	if d.Len()+len(p) <= d.room {
		return d.Buffer.Write(p)
	}
	n := d.room - d.Len()
	d.Buffer.Write(p[:n])
	return n, errFull
}

// Once a write fails the trace is incomplete: nothing more is written after the torn line, Err
// keeps the cause, and Failure hands it out once, whichever record's write it was.
func TestATraceStopsAtItsFirstFailedWrite(t *testing.T) {
	disk := &fullDisk{room: 2000}
	w := NewTraceWriter(disk)
	if err := w.WriteHeader(TraceHeader{SessionID: "s1"}); err != nil || w.Err() != nil || w.Failure() != nil {
		t.Fatalf("a header that fits: %v, %v", err, w.Err())
	}
	big := TraceRecord{Agent: "Patient", Error: string(bytes.Repeat([]byte("x"), 3000))}
	if err := w.Write(big); !errors.Is(err, errFull) {
		t.Fatalf("the overflowing write: %v", err)
	}
	torn := disk.Len()
	if err := w.WriteInput(TraceInput{Op: InputTurn, Text: "hi"}); !errors.Is(err, errFull) || disk.Len() != torn {
		t.Fatalf("a write after the failure: %v, wrote %d bytes", err, disk.Len()-torn)
	}
	if !errors.Is(w.Failure(), errFull) || w.Failure() != nil || !errors.Is(w.Err(), errFull) {
		t.Fatal("the failure is not handed out exactly once, or Err forgot it")
	}
	var cut *CutError
	if runs, err := ReadTrace(bytes.NewReader(disk.Bytes())); !errors.As(err, &cut) || cut.Line != 2 || len(runs) != 1 {
		t.Fatalf("reading the torn trace: %d runs, %v", len(runs), err)
	}
}
