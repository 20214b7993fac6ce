package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/persist/outfile"
	"github.com/ward-sim/ward/themes"
)

// terminalWriter is how every command prints, on stdout and stderr alike: text from a scenario
// file, a card, a trace or a model may carry sequences a terminal would obey. C1 controls become
// JSON's escapes (in JSON output that is the right encoding; in text it shows them), then nothing
// else a terminal obeys is left. A write that ends inside a character (a buffered writer cuts
// where its buffer fills) holds its start back for the next write, or for flush.
type terminalWriter struct {
	w    io.Writer
	held []byte // the first bytes of a character the last write cut
}

func (t *terminalWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.held) > 0 {
		p = append(t.held, p...)
		t.held = nil
	}
	if cut := cutCharacter(p); cut > 0 {
		t.held = bytes.Clone(p[len(p)-cut:])
		p = p[:len(p)-cut]
	}
	if err := t.write(p); err != nil {
		return 0, err
	}
	return n, nil
}

func (t *terminalWriter) write(p []byte) error {
	var err error
	if themes.IsPrintable(p) { // no control, no C1: nothing to clean (almost every write)
		_, err = t.w.Write(p)
	} else {
		_, err = io.WriteString(t.w, themes.Printable(escapeC1(string(p))))
	}
	return err
}

// flush writes what a cut character held back, cleaned as the broken text it is.
func (t *terminalWriter) flush() error {
	held := t.held
	t.held = nil
	return t.write(held)
}

// cutCharacter is how many bytes at the end of p begin a UTF-8 character p does not finish.
func cutCharacter(p []byte) int {
	for i := 1; i <= min(len(p), utf8.UTFMax-1); i++ {
		c := p[len(p)-i]
		if utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(p[len(p)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// escapeC1 writes the C1 controls (U+0080–U+009F), which encoding/json leaves raw, as \u00XX.
func escapeC1(s string) string {
	if !strings.ContainsFunc(s, isC1) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isC1(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// toStderr prints notices as ward's one-line diagnostics.
func toStderr(stderr io.Writer) func(string) {
	return func(note string) { fmt.Fprintln(stderr, "ward:", note) }
}

// writeOut writes a document as --format asks, to --out or stdout: text and markdown as they
// are, JSON encoded from doc.
func writeOut(c *call, doc any, text, markdown string) error {
	return toOut(c, func(out io.Writer) (err error) {
		switch c.o.format {
		case "json":
			return writeJSON(out, doc)
		case "text":
			_, err = io.WriteString(out, text)
		default:
			_, err = io.WriteString(out, markdown)
		}
		return err
	})
}

// checkOutput refuses, before the command does its work, a --format it does not take and an
// --out it could not write.
func checkOutput(c *call) error {
	if err := checkFormat(c); err != nil {
		return err
	}
	return checkOut(c)
}

// checkFormat refuses a --format the command does not take.
func checkFormat(c *call) error {
	if c.cmd.Flags().Lookup("format") != nil && !slices.Contains(c.formats, c.o.format) {
		f := c.formats
		return usageError{fmt.Sprintf("--format must be %s or %s, not %q", strings.Join(f[:len(f)-1], ", "), f[len(f)-1], c.o.format)}
	}
	return nil
}

// toOut gives write the new file --out names (outfile: whole or not at all, the user's alone,
// never over a file it must not replace), or stdout.
func toOut(c *call, write func(io.Writer) error) error {
	if c.o.out == "" {
		return write(c.stdout)
	}
	return outfile.Write(c.o.out, c.o.force, write)
}

// checkOut refuses an --out that could only fail, before the command does its work: one that
// exists (without --force), the database or its audit record, or a file the command reads.
func checkOut(c *call) error {
	if c.o.out == "" || c.cmd.Flags().Lookup("force") == nil { // recover names a new database itself
		return nil
	}
	db := defaultDBPath() // the database is --db's, or the one ward opens by default
	if c.cmd.Flags().Lookup("db") != nil {
		db = c.o.db
	}
	// The files a command reads are its arguments (diff's traces).
	keep := append(slices.Clone(c.args), db, persist.AuditPath(db))
	defer outfile.Hold(keep...)()
	return outfile.Check(c.o.out, c.o.force)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeTable prints a report as its table, or as JSON with --json.
func writeTable(c *call, report interface{ Table(io.Writer) error }) error {
	if c.o.json {
		return writeJSON(c.stdout, report)
	}
	return report.Table(c.stdout)
}
