package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxInputBytes bounds one turn. A longer line is refused with a clear error rather than stored
// half or held in memory without limit.
const MaxInputBytes = 1 << 20

// maxUnsavedInARow is how many turns in a row may fail to save before the runner stops taking
// input: past that the store is not coming back (a full disk), and every further line is lost.
const maxUnsavedInARow = 3

// RunLines is the headless runner: one turn per input line, one JSON event per output line.
// Empty lines are skipped. It returns at end of input, on a write or read failure, or after
// maxUnsavedInARow turns in a row could not be saved; it returns an error when any turn could
// not be saved, so a script sees the loss in the exit status.
func (s *Session) RunLines(ctx context.Context, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64*1024)
	w := bufio.NewWriter(out)
	var writeErr error
	var notSaved, lastNotSaved error
	unsaved, inARow := 0, 0
	emit := func(e Event) {
		if er, ok := e.(ErrorEvent); ok && er.Code == CodeNotSaved {
			notSaved = errors.New(er.Message)
		}
		if _, streaming := e.(DeltaEvent); streaming || writeErr != nil {
			return
		}
		if e = s.eventForViewer(e); e != nil {
			writeErr = writeEvent(w, e)
		}
	}
	for {
		line, tooLong, err := readLine(r)
		if err == io.EOF {
			if unsaved > 0 {
				writeErr = errors.Join(writeErr, fmt.Errorf("%d turn(s) could not be saved, the last: %w", unsaved, lastNotSaved))
			}
			return errors.Join(writeErr, w.Flush())
		}
		if err != nil {
			return fmt.Errorf("reading input: %w", err)
		}
		notSaved = nil
		switch {
		case tooLong:
			s.refuseInput(emit, line)
		case strings.TrimSpace(line) != "":
			s.Turn(ctx, line, emit)
		}
		if writeErr != nil {
			return writeErr
		}
		if notSaved == nil {
			inARow = 0
			continue
		}
		unsaved, lastNotSaved = unsaved+1, notSaved
		if inARow++; inARow == maxUnsavedInARow {
			return errors.Join(fmt.Errorf("stopped: %d turns in a row could not be saved, the last: %w", inARow, notSaved), w.Flush())
		}
	}
}

func writeEvent(w *bufio.Writer, e Event) error {
	b, err := EncodeJSON(e)
	if err != nil {
		return err
	}
	w.Write(b)
	w.WriteByte('\n')
	return w.Flush()
}

// readLine returns the next line without its newline. A line over MaxInputBytes is drained and
// reported as too long, with its first bytes kept for the error message.
func readLine(r *bufio.Reader) (string, bool, error) {
	var b strings.Builder
	total := 0
	for {
		chunk, err := r.ReadSlice('\n')
		total += len(chunk)
		if total <= MaxInputBytes+2 { // room for "\r\n"
			b.Write(chunk)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || total == 0) {
			return "", false, err
		}
		line := strings.TrimRight(b.String(), "\r\n")
		return line, total > MaxInputBytes+2 || len(line) > MaxInputBytes, nil
	}
}

// refuseInput ends a turn whose text is too large to keep, saying so.
func (s *Session) refuseInput(emit func(Event), line string) {
	preview := line
	if len(preview) > 40 {
		preview = strings.ToValidUTF8(preview[:40], "") + "…"
	}
	emit(ErrorEvent{Code: "INPUT_TOO_LONG", Message: fmt.Sprintf(
		"that input is over %d KiB and was not sent; split it into smaller messages", MaxInputBytes>>10)})
	t := &turn{input: preview, emit: emit}
	s.endTurn(t)
}
