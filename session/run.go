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

// RunLines is the headless runner: one turn per input line, one JSON event per output line.
// Empty lines are skipped. It returns at end of input, or on a write or read failure.
func (s *Session) RunLines(ctx context.Context, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64*1024)
	w := bufio.NewWriter(out)
	var writeErr error
	emit := func(e Event) {
		if _, streaming := e.(DeltaEvent); streaming || writeErr != nil {
			return
		}
		writeErr = writeEvent(w, e)
	}
	for {
		line, tooLong, err := readLine(r)
		if err == io.EOF {
			return errors.Join(writeErr, w.Flush())
		}
		if err != nil {
			return fmt.Errorf("reading input: %w", err)
		}
		switch {
		case tooLong:
			s.refuseInput(emit, line)
		case strings.TrimSpace(line) != "":
			s.Turn(ctx, line, emit)
		}
		if writeErr != nil {
			return writeErr
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
