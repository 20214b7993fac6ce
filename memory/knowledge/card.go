package knowledge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"gopkg.in/yaml.v3"
)

// Card is one protocol card: a titled, sourced text split into sections.
type Card struct {
	ID        string
	Title     string
	Source    Source
	Scenarios []string // built-in scenario ids the card supports
	Doses     []Dose   // the doses the text states, for cross-checking against a formulary
	Sections  []Section
	Origin    string // "built-in", or the path of the user's file
}

// Source names where a card's facts come from.
type Source struct {
	Body      string `yaml:"body"`      // e.g. Resuscitation Council UK
	Guideline string `yaml:"guideline"` // e.g. Emergency treatment of anaphylaxis
	Year      int    `yaml:"year"`
}

// String reads "Body, Guideline (Year)", leaving out what is missing.
func (s Source) String() string {
	var parts []string
	for _, p := range []string{s.Body, s.Guideline} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	out := strings.Join(parts, ", ")
	if s.Year > 0 {
		out = strings.TrimSpace(out + " (" + strconv.Itoa(s.Year) + ")")
	}
	return out
}

// Dose is one dose a card states, in structured form. Drug uses the names of ward's drug
// catalogue (epinephrine, not adrenaline), so a test can look it up in a formulary.
type Dose struct {
	Drug   string  `yaml:"drug"`
	Route  string  `yaml:"route"`
	Amount float64 `yaml:"amount"`
	Max    float64 `yaml:"max,omitempty"` // the top of a range; 0 for a single amount
	Unit   string  `yaml:"unit"`          // mg, micrograms, g, mL
	// Strength is what a volume is of ("10%", "1 mg/mL"); empty for an amount of the drug itself.
	Strength string `yaml:"strength,omitempty"`
	Who      string `yaml:"who,omitempty"` // adult, child 6–12 years…
	Note     string `yaml:"note,omitempty"`
}

// Amounts writes the dose as the card's text does: "0.5 mg", "150–200 mL".
func (d Dose) Amounts() string {
	n := strconv.FormatFloat(d.Amount, 'f', -1, 64)
	if d.Max > d.Amount {
		n += "–" + strconv.FormatFloat(d.Max, 'f', -1, 64)
	}
	return n + " " + d.Unit
}

// Section is one heading of a card and the text under it.
type Section struct {
	Heading string
	Text    string
}

type frontMatter struct {
	ID        string   `yaml:"id"`
	Title     string   `yaml:"title"`
	Source    Source   `yaml:"source"`
	Scenarios []string `yaml:"scenarios"`
	Doses     []Dose   `yaml:"doses"`
}

// maxSectionWords bounds a chunk: a longer section is split at paragraphs, so one passage in a
// prompt stays a few sentences and a user's long file is still found by its parts.
const maxSectionWords = 220

// untitledSection heads text that comes before a card's first "##" heading.
const untitledSection = "Overview"

var validID = lazyRegexp(`^[a-z0-9][a-z0-9._-]*$`)

// parseCard reads a card from markdown or plain text. An optional YAML front matter between
// "---" lines gives id, title, source, scenarios and doses; "# " sets the title when the front
// matter does not, and each "## " starts a section. Without an id the file name gives one.
// Control characters and escape sequences are removed first, so nothing a user's file holds
// can reach a terminal or a prompt.
func parseCard(name string, data []byte, origin string) (Card, error) {
	text := clean(string(data))
	fm, body, err := splitFrontMatter(text)
	if err != nil {
		return Card{}, fmt.Errorf("%s: %w", name, err)
	}
	c := Card{ID: fm.ID, Title: fm.Title, Source: fm.Source, Scenarios: fm.Scenarios, Doses: fm.Doses, Origin: origin}
	title, sections := splitSections(body)
	if c.Title == "" {
		c.Title = title
	}
	if c.Title == "" {
		c.Title = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	}
	if c.ID == "" {
		c.ID = idFromName(name)
	}
	if !validID().MatchString(c.ID) {
		return Card{}, fmt.Errorf("%s: id %q must be lower-case letters, digits, '.', '-' or '_'", name, c.ID)
	}
	c.Sections = sections
	if len(c.Sections) == 0 {
		return Card{}, fmt.Errorf("%s: no text", name)
	}
	return c, nil
}

// splitFrontMatter separates a leading "---" YAML block from the body. Unknown keys are an
// error, so a misspelt field is reported instead of silently ignored.
func splitFrontMatter(text string) (frontMatter, string, error) {
	var fm frontMatter
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return fm, text, nil
	}
	head, body, found := strings.Cut(rest, "\n---\n")
	if !found {
		head, found = strings.CutSuffix(rest, "\n---")
	}
	if !found {
		return fm, "", fmt.Errorf("front matter opened with --- is not closed")
	}
	dec := yaml.NewDecoder(bytes.NewReader([]byte(head)))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil && !errors.Is(err, io.EOF) {
		return fm, "", fmt.Errorf("front matter: %w", err)
	}
	return fm.cleaned(), body, nil
}

// cleaned cleans the front matter's strings again: YAML escapes such as "\e" in a quoted
// string make control characters that were not in the file's text.
func (fm frontMatter) cleaned() frontMatter {
	fm.Title = oneLine(fm.Title)
	fm.Source.Body, fm.Source.Guideline = oneLine(fm.Source.Body), oneLine(fm.Source.Guideline)
	for i, s := range fm.Scenarios {
		fm.Scenarios[i] = oneLine(s)
	}
	for i, d := range fm.Doses {
		d.Drug, d.Route, d.Unit, d.Who, d.Note = oneLine(d.Drug), oneLine(d.Route), oneLine(d.Unit), oneLine(d.Who), oneLine(d.Note)
		fm.Doses[i] = d
	}
	return fm
}

// oneLine cleans a header field and folds its white space, so it prints on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(clean(s)), " ") }

// splitSections returns the first "# " title and the "## " sections, each cut to
// maxSectionWords at paragraph breaks.
func splitSections(body string) (string, []Section) {
	var (
		title    string
		sections []Section
		heading  = untitledSection
		lines    []string
	)
	flush := func() {
		sections = append(sections, splitLong(heading, strings.TrimSpace(strings.Join(lines, "\n")))...)
		lines = nil
	}
	for _, line := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			flush()
			if heading = oneLine(strings.TrimPrefix(line, "## ")); heading == "" {
				heading = untitledSection
			}
		case strings.HasPrefix(line, "# ") && title == "" && len(sections) == 0:
			title = oneLine(strings.TrimPrefix(line, "# "))
		default:
			lines = append(lines, line)
		}
	}
	flush()
	return title, sections
}

// splitLong keeps a short section whole and cuts a long one at paragraphs into parts headed
// "Heading (2)", "Heading (3)"…; empty text gives no section.
func splitLong(heading, text string) []Section {
	if text == "" {
		return nil
	}
	if len(strings.Fields(text)) <= maxSectionWords {
		return []Section{{heading, text}}
	}
	var (
		parts []Section
		cur   []string
		words int
	)
	emit := func() {
		h := heading
		if len(parts) > 0 {
			h = fmt.Sprintf("%s (%d)", heading, len(parts)+1)
		}
		parts = append(parts, Section{h, strings.Join(cur, "\n\n")})
		cur, words = nil, 0
	}
	for _, para := range strings.Split(text, "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		n := len(strings.Fields(para))
		if words > 0 && words+n > maxSectionWords {
			emit()
		}
		cur = append(cur, para)
		words += n
	}
	emit()
	return parts
}

// idFromName makes an id from a file name: "My Local Sepsis.md" → "my-local-sepsis".
func idFromName(name string) string {
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)))
	var b strings.Builder
	dash := false
	for _, r := range base {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// clean keeps words only in a card's text: "\n" line ends, valid UTF-8, no escape sequences
// and no control characters but newline and tab. It is the index's and the prompt's hygiene; what
// reaches a terminal is cleaned again where it is printed (themes.Printable).
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
}
