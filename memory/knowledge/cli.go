package knowledge

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// The plain-text views behind `ward kb list | search QUERY | show ID`, for users checking
// what ward knows. Card text was cleaned of control characters when it was read.

// WriteList prints one line per card: id, title, source, sections, origin; then the files
// that were skipped.
func WriteList(w io.Writer, lib Library) error {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tSOURCE\tSECTIONS\tFROM")
	for _, c := range lib.Cards {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", c.ID, c.Title, orDash(c.Source.String()), len(c.Sections), c.Origin)
	}
	_ = tw.Flush() // writes to memory
	for _, p := range lib.Problems {
		fmt.Fprintf(&b, "skipped: %v\n", p)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteShow prints a card in full: its header, its doses and every section.
func WriteShow(w io.Writer, lib Library, id string) error {
	c, ok := lib.Card(id)
	if !ok {
		return fmt.Errorf("no card %q (ward kb list shows them)", id)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s  (%s)\n", c.Title, c.ID)
	fmt.Fprintf(&b, "Source: %s\n", orDash(c.Source.String()))
	fmt.Fprintf(&b, "From: %s\n", c.Origin)
	if len(c.Scenarios) > 0 {
		fmt.Fprintf(&b, "Scenarios: %s\n", strings.Join(c.Scenarios, ", "))
	}
	if len(c.Doses) > 0 {
		fmt.Fprintln(&b, "Doses:")
		for _, d := range c.Doses {
			fmt.Fprintf(&b, "  %s\n", doseLine(d))
		}
	}
	for _, s := range c.Sections {
		fmt.Fprintf(&b, "\n## %s\n%s\n", s.Heading, s.Text)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func doseLine(d Dose) string {
	line := d.Drug + " " + d.Route + " " + d.Amounts()
	if d.Who != "" {
		line += " (" + d.Who + ")"
	}
	if d.Note != "" {
		line += " — " + d.Note
	}
	return line
}

// WriteSearch prints what a query retrieved, with scores and why each passage was chosen.
func WriteSearch(w io.Writer, r Retrieval) error {
	var b bytes.Buffer
	if len(r.Passages) == 0 {
		fmt.Fprintf(&b, "Nothing found for %q.\n", r.Query)
	}
	for _, p := range r.Passages {
		fmt.Fprintf(&b, "[%d] %s › %s  (%s)\n", p.N, p.CardID, p.Section, p.Title)
		fmt.Fprintf(&b, "    score %.4f: %s\n", p.Score, p.Why)
		fmt.Fprintf(&b, "    %s\n", p.Source)
		fmt.Fprintf(&b, "    %s\n", preview(p.Text, 160))
	}
	if r.Note != "" {
		fmt.Fprintln(&b, r.Note)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// preview is the text on one line, cut to about n characters at a word.
func preview(text string, n int) string {
	one := strings.Join(strings.Fields(text), " ")
	if len([]rune(one)) <= n {
		return one
	}
	cut := string([]rune(one)[:n])
	if i := strings.LastIndex(cut, " "); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
