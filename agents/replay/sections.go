package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// The sections a comparison adds after the prompt's own: the request's other fields.
const (
	SectionTools   = "tools"
	SectionFormat  = "format"
	SectionOptions = "options"
)

// Section is one named part of a recorded call.
type Section struct {
	Name   string
	Text   string
	Tokens int // the session's estimate; 0 for the request's other fields and unsectioned prompts
}

// Sections splits a recorded call into its prompt's sections, in prompt order, then its tools,
// output format and options. A call the session made carries its sections' texts; a call of the
// analyzer or the router is split by role: its system text is static, its last user message the
// user section, anything between the window.
func Sections(rec llm.TraceRecord) []Section {
	var out []Section
	if rec.SectionTexts != nil {
		for _, name := range agents.SectionNames {
			out = append(out, Section{Name: name, Text: rec.SectionTexts[name], Tokens: rec.Sections[name]})
		}
	} else {
		out = byRole(rec.Messages)
	}
	tools, _ := json.MarshalIndent(rec.Tools, "", "  ") // tools decoded from JSON encode again
	if len(rec.Tools) == 0 {
		tools = nil
	}
	options := fmt.Sprintf("num_ctx %d\nnum_predict %d\nkeep_alive %s\n", rec.Options.NumCtx, rec.Options.NumPredict, rec.KeepAlive)
	if t := rec.Options.Temperature; t != nil {
		options += fmt.Sprintf("temperature %g\n", *t)
	}
	if rec.Options.Seed != 0 {
		options += fmt.Sprintf("seed %d\n", rec.Options.Seed)
	}
	return append(out, Section{Name: SectionTools, Text: string(tools)},
		Section{Name: SectionFormat, Text: indentJSON(rec.Format)}, Section{Name: SectionOptions, Text: options})
}

func byRole(msgs []memory.Message) []Section {
	var static []string
	for len(msgs) > 0 && msgs[0].Role == memory.RoleSystem {
		static, msgs = append(static, msgs[0].Content), msgs[1:]
	}
	user := ""
	if n := len(msgs); n > 0 && msgs[n-1].Role == memory.RoleUser {
		user, msgs = msgs[n-1].Content, msgs[:n-1]
	}
	return []Section{
		{Name: agents.SectionStatic, Text: strings.Join(static, "\n\n")},
		{Name: agents.SectionWindow, Text: agents.MessagesText(msgs)},
		{Name: agents.SectionUser, Text: user},
	}
}

// SectionDiff is one section that differs between two calls: its sizes, its token estimates and
// a unified diff of its text. A call missing on one side compares with empty sections.
type SectionDiff struct {
	Name             string
	BytesA, BytesB   int
	TokensA, TokensB int
	Diff             string
}

// SectionMessages names the whole prompt, compared when the requests differ and no section
// does: the messages were laid out differently, or a trace was edited by hand.
const SectionMessages = "messages"

// CompareCalls lists the sections that differ between a and b, in prompt order. labelA and labelB
// head the diffs.
func CompareCalls(a, b *llm.TraceRecord, labelA, labelB string) []SectionDiff {
	sa, sb := sectionsOf(a), sectionsOf(b)
	var out []SectionDiff
	for _, name := range sectionOrder(sa, sb) {
		if d, ok := compare(find(sa, name), find(sb, name), labelA, labelB); ok {
			out = append(out, d)
		}
	}
	if len(out) == 0 && a != nil && b != nil && !bytes.Equal(a.Sent(), b.Sent()) {
		x := Section{Name: SectionMessages, Text: agents.MessagesText(a.Messages)}
		y := Section{Name: SectionMessages, Text: agents.MessagesText(b.Messages)}
		if d, ok := compare(x, y, labelA, labelB); ok {
			out = append(out, d)
		}
	}
	return out
}

func compare(x, y Section, labelA, labelB string) (SectionDiff, bool) {
	if x.Text == y.Text {
		return SectionDiff{}, false
	}
	return SectionDiff{
		Name: x.Name, BytesA: len(x.Text), BytesB: len(y.Text), TokensA: x.Tokens, TokensB: y.Tokens,
		Diff: lineDiff(labelA+" "+x.Name, labelB+" "+x.Name, readable(x.Text), readable(y.Text)),
	}, true
}

func sectionsOf(rec *llm.TraceRecord) []Section {
	if rec == nil {
		return nil
	}
	return Sections(*rec)
}

// sectionOrder is the union of both calls' section names, a's order first.
func sectionOrder(a, b []Section) []string {
	var names []string
	seen := map[string]bool{}
	for _, s := range append(append([]Section{}, a...), b...) {
		if !seen[s.Name] {
			seen[s.Name], names = true, append(names, s.Name)
		}
	}
	return names
}

func find(secs []Section, name string) Section {
	for _, s := range secs {
		if s.Name == name {
			return s
		}
	}
	return Section{Name: name}
}

// lineDiff is a unified diff of a and b, line by line. The library compares characters, which
// can split a changed line across its unchanged neighbours; here each distinct line is one
// character of a private alphabet, so the edits it finds are whole lines.
func lineDiff(labelA, labelB, a, b string) string {
	diff, err := udiff.ToUnified(labelA, labelB, a, lineEdits(a, b), udiff.DefaultContextLines)
	if err != nil {
		panic("replay: line diff: " + err.Error()) // the edits come from the texts themselves
	}
	return diff
}

// lineEdits are the edits that make b of a, each replacing whole lines.
func lineEdits(a, b string) []udiff.Edit {
	var alphabet []string // the lines, indexed by their character's offset from firstSymbol
	symbols := map[string]rune{}
	encode := func(text string) (string, []int) {
		var enc strings.Builder
		offsets := []int{0} // where each line starts in text, and where the text ends
		for _, line := range strings.SplitAfter(text, "\n") {
			if line == "" {
				continue
			}
			r, ok := symbols[line]
			if !ok {
				r = firstSymbol + rune(len(alphabet))
				symbols[line], alphabet = r, append(alphabet, line)
			}
			enc.WriteRune(r)
			offsets = append(offsets, offsets[len(offsets)-1]+len(line))
		}
		return enc.String(), offsets
	}
	encA, offsets := encode(a)
	encB, _ := encode(b)
	var edits []udiff.Edit
	for _, e := range udiff.Strings(encA, encB) {
		var lines strings.Builder
		for _, r := range e.New {
			lines.WriteString(alphabet[r-firstSymbol])
		}
		edits = append(edits, udiff.Edit{Start: offsets[e.Start/symbolBytes], End: offsets[e.End/symbolBytes], New: lines.String()})
	}
	return edits
}

// The private alphabet starts in the supplementary planes, where every character takes
// symbolBytes bytes, so a byte offset into an encoded text is a line number times symbolBytes.
const (
	firstSymbol = rune(0x10000)
	symbolBytes = 4
)

// readable lays out each line that ends in a JSON object (the facts, the snapshot, the
// entities) one field per line, so that a diff points at the field that changed rather than at
// a line of a thousand characters. It ends the text with a newline, as a diff expects.
func readable(text string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		at := strings.IndexByte(line, '{')
		if at < 0 || !json.Valid([]byte(line[at:])) {
			continue
		}
		lines[i] = line[:at] + indentJSON(json.RawMessage(line[at:]))
	}
	return strings.Join(lines, "\n")
}

func indentJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}
