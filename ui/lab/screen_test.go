package lab

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// vtScreen is what an SSH client's terminal shows: the text of each cell, drawn from the bytes
// the server sends. It knows what Bubble Tea's renderer uses (text, CR, LF, cursor moves, erase
// line and display) and ignores colours, modes and titles; a sequence split across reads waits
// for its end. It answers the two questions a program asks its terminal at start (the
// background colour, the cursor's place) as a dark terminal does: unanswered, the program waits.
type vtScreen struct {
	rows, cols int
	cells      [][]rune
	text       []string // each row's text as Lines gives it, where fresh says it is still so
	fresh      []bool
	row, col   int
	pending    []byte // the start of a sequence or rune not yet complete
	answers    []byte // what the terminal says back, not yet sent
}

// Answers takes what the terminal has to say back to the program.
func (s *vtScreen) Answers() []byte {
	a := s.answers
	s.answers = nil
	return a
}

func newVTScreen(rows, cols int) *vtScreen {
	s := &vtScreen{rows: rows, cols: cols, cells: make([][]rune, rows), text: make([]string, rows), fresh: make([]bool, rows)}
	for i := range s.cells {
		s.cells[i] = blankRow(cols)
	}
	return s
}

func blankRow(cols int) []rune { return []rune(strings.Repeat(" ", cols)) }

// Lines is the screen's text, one string per row, trailing blanks cut. A row's text is made
// again only when the row has changed: a class's clients ask after every read.
func (s *vtScreen) Lines() []string {
	for i, r := range s.cells {
		if !s.fresh[i] {
			s.text[i], s.fresh[i] = strings.TrimRight(string(r), " "), true
		}
	}
	return slices.Clone(s.text)
}

func (s *vtScreen) String() string { return strings.Join(s.Lines(), "\n") }

// Write draws p.
func (s *vtScreen) Write(p []byte) (int, error) {
	b := append(s.pending, p...)
	for len(b) > 0 {
		n := s.step(b)
		if n == 0 { // incomplete: wait for the rest
			break
		}
		b = b[n:]
	}
	s.pending = append([]byte(nil), b...)
	return len(p), nil
}

// step draws one control, sequence or rune at the start of b and returns its length, or 0 when
// b holds only its beginning.
func (s *vtScreen) step(b []byte) int {
	switch b[0] {
	case '\x1b':
		return s.escape(b)
	case '\r':
		s.col = 0
	case '\n':
		s.lineFeed()
	case '\b':
		s.col = max(s.col-1, 0)
	case '\t':
		s.col = min((s.col/8+1)*8, s.cols-1)
	default:
		if b[0] < 0x20 || b[0] == 0x7f {
			return 1
		}
		if !utf8.FullRune(b) {
			return 0
		}
		r, n := utf8.DecodeRune(b)
		s.put(r)
		return n
	}
	return 1
}

func (s *vtScreen) lineFeed() {
	if s.row < s.rows-1 {
		s.row++
		return
	}
	s.cells = append(s.cells[1:], blankRow(s.cols))
	s.text, s.fresh = append(s.text[1:], ""), append(s.fresh[1:], false)
}

// put writes r at the cursor, wrapping first when the last column was already written.
func (s *vtScreen) put(r rune) {
	w := 1 // printable ASCII, most of what is drawn
	if r >= utf8.RuneSelf {
		w = ansi.StringWidth(string(r))
	}
	if w == 0 {
		return
	}
	if s.col+w > s.cols {
		s.col = 0
		s.lineFeed()
	}
	s.fresh[s.row] = false
	s.cells[s.row][s.col] = r
	for i := 1; i < w; i++ {
		s.cells[s.row][s.col+i] = ' '
	}
	s.col += w
}

// escape handles ESC sequences: CSI (ESC [), OSC (ESC ], up to BEL or ESC \), and any other
// two-byte sequence.
func (s *vtScreen) escape(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				s.csi(string(b[2:i]), b[i])
				return i + 1
			}
		}
		return 0
	case ']', 'P', '_', '^': // strings: a title, a clipboard write, a query
		for i := 2; i < len(b); i++ {
			end := 0
			if b[i] == '\a' {
				end = i + 1
			} else if b[i] == '\x1b' && i+1 < len(b) && b[i+1] == '\\' {
				end = i + 2
			}
			if end > 0 {
				if b[1] == ']' && string(b[2:i]) == "11;?" {
					s.answers = append(s.answers, "\x1b]11;rgb:0000/0000/0000\x1b\\"...)
				}
				return end
			}
		}
		return 0
	}
	return 2
}

// csi applies a control sequence with its parameters and final byte.
func (s *vtScreen) csi(params string, final byte) {
	if strings.HasPrefix(params, "?") || strings.HasPrefix(params, ">") { // modes and queries
		return
	}
	args := strings.Split(params, ";")
	arg := func(i, def int) int {
		if i < len(args) {
			if n, err := strconv.Atoi(args[i]); err == nil && n > 0 {
				return n
			}
		}
		return def
	}
	switch final {
	case 'H', 'f':
		s.row, s.col = min(arg(0, 1), s.rows)-1, min(arg(1, 1), s.cols)-1
	case 'A':
		s.row = max(s.row-arg(0, 1), 0)
	case 'B':
		s.row = min(s.row+arg(0, 1), s.rows-1)
	case 'C':
		s.col = min(s.col+arg(0, 1), s.cols-1)
	case 'D':
		s.col = max(s.col-arg(0, 1), 0)
	case 'G':
		s.col = min(arg(0, 1), s.cols) - 1
	case 'K':
		s.eraseLine(arg(0, 0))
	case 'J':
		s.eraseDisplay(arg(0, 0))
	case 'n':
		if params == "6" {
			s.answers = fmt.Appendf(s.answers, "\x1b[%d;%dR", s.row+1, s.col+1)
		}
	}
}

func (s *vtScreen) eraseLine(mode int) {
	from, to := s.col, s.cols
	switch mode {
	case 1:
		from, to = 0, min(s.col+1, s.cols)
	case 2:
		from = 0
	}
	s.fresh[s.row] = false
	for i := from; i < to; i++ {
		s.cells[s.row][i] = ' '
	}
}

func (s *vtScreen) eraseDisplay(mode int) {
	clear(s.fresh)
	switch mode {
	case 0:
		s.eraseLine(0)
		for r := s.row + 1; r < s.rows; r++ {
			s.cells[r] = blankRow(s.cols)
		}
	case 1:
		s.eraseLine(1)
		for r := 0; r < s.row; r++ {
			s.cells[r] = blankRow(s.cols)
		}
	default:
		for r := range s.cells {
			s.cells[r] = blankRow(s.cols)
		}
	}
}

// The screen draws what Bubble Tea's renderer sends, however the bytes are split.
func TestScreenDrawsWhatTheRendererSends(t *testing.T) {
	frame := "\x1b[?1049h\x1b[2J\x1b[H\x1b]0;ward\a\x1b[1;31mpatient_1\x1b[0m NEWS2 5\x1b[K\r\n" +
		"│ héllo ─ chat\x1b[K\r\n" + "third line\r\n" +
		"\x1b[2;3HH\x1b[1B\x1b[3Dxx\x1b[3;1H\x1b[2Kbottom"
	want := "patient_1 NEWS2 5\n│ Héllo ─ chat\nbottom\n"
	for _, split := range []int{1, 3, 7, len(frame)} {
		s := newVTScreen(4, 20)
		for b := []byte(frame); len(b) > 0; {
			n := min(split, len(b))
			_, _ = s.Write(b[:n])
			b = b[n:]
		}
		if got := s.String(); got != want {
			t.Errorf("written %d bytes at a time:\n%q\nwant\n%q", split, got, want)
		}
	}
	s := newVTScreen(2, 5)
	_, _ = s.Write([]byte("abcdefg\nxy"))
	if got := s.String(); got != "fg\n  xy" {
		t.Errorf("wrapping and scrolling: %q", got)
	}
	_, _ = s.Write([]byte("\x1b]11;?\x1b\\\x1b[6n"))
	if got := string(s.Answers()); got != "\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[2;5R" {
		t.Errorf("the terminal answered %q", got)
	}
}

// The rows' text the screen keeps between reads is the text of its cells, whatever was drawn
// since: text, wide characters, line ends that scroll, erasing and cursor moves, at random.
func TestScreenLinesAreItsCells(t *testing.T) {
	pieces := []string{"ward ", "字", "é", "\r\n", "\n", "\r", "\x1b[K", "\x1b[1K", "\x1b[2K", "\x1b[J", "\x1b[1J",
		"\x1b[2J", "\x1b[H", "\x1b[2A", "\x1b[3B", "\x1b[4C", "\x1b[5D", "\x1b[7G", "\x1b[3;9H", "\b", "\t"}
	rng := rand.New(rand.NewPCG(35, 1))
	s := newVTScreen(5, 12)
	for i := range 5000 {
		piece := pieces[rng.IntN(len(pieces))]
		_, _ = s.Write([]byte(piece))
		cells := make([]string, s.rows)
		for r, row := range s.cells {
			cells[r] = strings.TrimRight(string(row), " ")
		}
		if got := s.Lines(); !slices.Equal(got, cells) {
			t.Fatalf("after piece %d (%q) the screen's lines are\n%q\nits cells\n%q", i, piece, got, cells)
		}
	}
}
