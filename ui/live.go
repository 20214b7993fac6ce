package ui

import (
	"strings"

	"github.com/ward-sim/ward/themes"
)

// liveMessage is a message still streaming in. Markdown can only be laid
// out for good once a block is complete, so the text is split into a
// stable part (whole blocks, ending at a blank line outside a code fence),
// rendered once, and an unstable tail re-rendered on each flush.
type liveMessage struct {
	id, agent string
	text      strings.Builder
	dirty     bool

	width     int      // the width stable was rendered at
	stableEnd int      // bytes of text already in stable
	stable    []string // rendered complete blocks
	tail      []string // rendered unstable tail
	label     string
}

func (lm *liveMessage) lines(c *chatPane) []string {
	if lm.width != c.width {
		lm.width, lm.stableEnd, lm.stable, lm.dirty = c.width, 0, nil, true
		lm.label = fit(c.agentLabel(lm.agent), c.width)
	}
	if lm.dirty {
		lm.update(c)
		lm.dirty = false
	}
	lines := make([]string, 0, 1+len(lm.stable)+1+len(lm.tail))
	lines = append(lines, lm.label)
	lines = append(lines, lm.stable...)
	if len(lm.stable) > 0 && len(lm.tail) > 0 {
		lines = append(lines, strings.Repeat(" ", c.width))
	}
	return append(lines, lm.tail...)
}

func (lm *liveMessage) update(c *chatPane) {
	text := lm.text.String()
	width := c.width - bodyIndent
	if end := stableBoundary(text, lm.stableEnd); end > lm.stableEnd {
		block := c.indented(c.md.lines(themes.Printable(text[lm.stableEnd:end]), width))
		if len(lm.stable) > 0 && len(block) > 0 {
			lm.stable = append(lm.stable, strings.Repeat(" ", c.width))
		}
		lm.stable = append(lm.stable, block...)
		lm.stableEnd = end
	}
	lm.tail = nil
	if rest := strings.TrimSpace(text[lm.stableEnd:]); rest != "" {
		lm.tail = c.indented(c.md.lines(themes.Printable(rest), width))
	}
}

// stableBoundary returns the end of the last complete markdown block in
// text, scanning from `from`, which is known to lie outside a code fence:
// the byte after the last blank line that is not inside a fence.
func stableBoundary(text string, from int) int {
	boundary := from
	inFence := false
	for pos := from; pos < len(text); {
		nl := strings.IndexByte(text[pos:], '\n')
		if nl < 0 {
			break // the last line is still being written
		}
		line := text[pos : pos+nl]
		pos += nl + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			inFence = !inFence
		case trimmed == "" && !inFence:
			boundary = pos
		}
	}
	return boundary
}
