package ui

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/themes"
	"pgregory.net/rapid"
)

// The input as drawn from its kept parts is the textarea's own drawing, over random edits:
// typing (ASCII, wide and accented characters, bursts with line ends), deleting, moving, new
// lines, clearing, recalling, pastes held aside, focus and sizes. Two inputs take the same
// edits; one is drawn as ward draws it, the other only ever by the textarea.
func TestTheInputDrawnFromKeptPartsIsTheTextareasDrawing(t *testing.T) {
	for _, look := range []struct {
		name    string
		noColor bool
	}{{"dark", false}, {"light", false}, {"high-contrast", false}, {"dark", true}} {
		name := look.name
		if look.noColor {
			name += " without colour"
		}
		theme, err := themes.New(look.name, look.noColor)
		if err != nil {
			t.Fatal(err)
		}
		drawn, kept := 0, 0 // frames, and those drawn from kept parts
		for seed := range inputSeeds() {
			rng := rand.New(rand.NewPCG(seed, 35))
			ours, fresh := newInputPane(&theme), newInputPane(&theme)
			both := func(edit func(in *inputPane)) { edit(&ours); edit(&fresh) }
			both(func(in *inputPane) { in.SetSize(120, 3); in.Focus() })
			var steps []string
			for range 200 {
				what, edit := randomInputEdit(rng)
				steps = append(steps, what)
				both(edit)
				if got, want := ours.textView(), fresh.ta.View(); got != want {
					t.Fatalf("%s, seed %d, after %q:\n%q\nthe textarea draws\n%q", name, seed, steps, got, want)
				}
				if ours.Value() != fresh.Value() || ours.ta.LineInfo() != fresh.ta.LineInfo() || ours.ta.Line() != fresh.ta.Line() {
					t.Fatalf("%s, seed %d, after %q: the input holds %q at %+v, the textarea alone %q at %+v", name, seed, steps,
						ours.Value(), ours.ta.LineInfo(), fresh.Value(), fresh.ta.LineInfo())
				}
				if k := ours.typed; k.known && (k.text != ours.ta.Value() || k.single && k.at != ours.ta.LineInfo().ColumnOffset) {
					t.Fatalf("%s, seed %d, after %q: the input keeps %q at %d as typed, the textarea holds %q at %+v", name, seed, steps,
						k.text, k.at, ours.ta.Value(), ours.ta.LineInfo())
				}
				drawn++
				if ours.line.checked {
					kept++
				}
			}
		}
		// A drawing found wrong when checked is never used; this is what shows the parts right.
		if kept < drawn/3 { // the rest: several lines, wrapping, wide characters
			t.Errorf("%s: %d of %d frames drawn from kept parts; want a third or more", name, kept, drawn)
		}
		t.Logf("%s: %d of %d frames drawn from kept parts", name, kept, drawn)
	}
}

// inputSeeds is how many random edit sequences each look is checked over: 25, or 5 under the
// race detector (one goroutine; CI runs the 25 without it).
func inputSeeds() uint64 {
	if raceDetector {
		return 5
	}
	return 25
}

// An input emptied after a send (clear, which deletes the text) is the textarea Reset, as it was
// emptied before: after any edits, the two hold and draw the same, and go on doing so through
// whatever edits follow.
func TestAClearedInputIsAResetOne(t *testing.T) {
	theme, err := themes.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(t *rapid.T) {
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 35))
		ours, reset := newInputPane(&theme), newInputPane(&theme)
		both := func(edit func(in *inputPane)) { edit(&ours); edit(&reset) }
		both(func(in *inputPane) { in.SetSize(120, 3); in.Focus() })
		var steps []string
		edit := func() {
			what, e := randomInputEdit(rng)
			steps = append(steps, what)
			both(e)
		}
		for range rapid.IntRange(0, 60).Draw(t, "edits before") {
			edit()
		}
		ours.clear()
		reset.ta.Reset()
		steps = append(steps, "cleared")
		for range rapid.IntRange(0, 20).Draw(t, "edits after") {
			if ours.ta.View() != reset.ta.View() || ours.ta.Value() != reset.ta.Value() ||
				ours.ta.LineInfo() != reset.ta.LineInfo() || ours.ta.Line() != reset.ta.Line() {
				t.Fatalf("after %q: the cleared input holds %q at %+v and draws\n%q\nthe reset one holds %q at %+v and draws\n%q",
					steps, ours.ta.Value(), ours.ta.LineInfo(), ours.ta.View(), reset.ta.Value(), reset.ta.LineInfo(), reset.ta.View())
			}
			edit()
		}
	})
}

// randomInputEdit is one edit of an input, named, mostly typing as a trainee does.
func randomInputEdit(rng *rand.Rand) (string, func(in *inputPane)) {
	key := func(name string, msg tea.KeyMsg) (string, func(in *inputPane)) {
		return name, func(in *inputPane) { in.Update(msg) }
	}
	switch n := rng.IntN(100); {
	case n < 55:
		r := rune(' ' + rng.IntN(95))
		return key(string(r), tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	case n < 60:
		return key("space", tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
	case n < 62:
		r := []rune("é字\t")[rng.IntN(3)]
		return key(string(r), tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	case n < 65:
		burst := []rune(strings.Repeat("word ", 1+rng.IntN(12)))
		if rng.IntN(2) == 0 {
			burst = append(burst, '\r', 'x')
		}
		return key("a burst", tea.KeyMsg{Type: tea.KeyRunes, Runes: burst})
	case n < 85:
		keys := []tea.KeyType{tea.KeyBackspace, tea.KeyDelete, tea.KeyLeft, tea.KeyRight, tea.KeyHome,
			tea.KeyEnd, tea.KeyUp, tea.KeyDown, tea.KeyCtrlJ, tea.KeyCtrlK, tea.KeyCtrlU, tea.KeyCtrlW,
			tea.KeyCtrlA, tea.KeyCtrlE}
		k := keys[rng.IntN(len(keys))]
		return key(k.String(), tea.KeyMsg{Type: k})
	case n < 87:
		r := []rune{'b', 'f', 'd'}[rng.IntN(3)]
		return key("alt+"+string(r), tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: true})
	case n < 90:
		return "sent", func(in *inputPane) { in.Sent(in.Value()) }
	case n < 92:
		d := []int{-1, 1}[rng.IntN(2)]
		return "recall", func(in *inputPane) {
			if in.CanRecall() {
				in.Recall(d)
			}
		}
	case n < 94:
		return "focus", func(in *inputPane) {
			if in.focused {
				in.Blur()
			} else {
				in.Focus()
			}
		}
	case n < 97:
		w, h := 8+rng.IntN(130), 2+rng.IntN(4)
		return "resized", func(in *inputPane) { in.SetSize(w, h) }
	case n < 98:
		return key("a held paste", tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune(strings.Repeat("pasted line\r", 350))})
	default:
		return "set", func(in *inputPane) { in.SetValue("review patient_1") }
	}
}

// Word left with no word before the cursor goes to the start of the input: the textarea's own
// looked for a word for ever, and alt+b on an empty input hung the program.
func TestWordLeftWithNoWordBeforeItGoesToTheStart(t *testing.T) {
	theme, err := themes.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'b'}, Alt: true}, {Type: tea.KeyLeft, Alt: true}} {
		for _, typed := range []string{"", "   ", "  \n \n   ", "\n\nx"} {
			in := newInputPane(&theme)
			in.SetSize(120, 3)
			in.Focus()
			in.SetValue(typed)
			if strings.HasSuffix(typed, "x") {
				in.Update(tea.KeyMsg{Type: tea.KeyLeft}) // before the x: only line ends before it
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				in.Update(k)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("%s on %q: never returned", k, typed)
			}
			if at := in.ta.LineInfo(); in.ta.Line() != 0 || at.StartColumn+at.ColumnOffset != 0 {
				t.Errorf("%s on %q: the cursor is on line %d at %+v, not at the start", k, typed, in.ta.Line(), at)
			}
		}
	}
	in := newInputPane(&theme) // a word before the cursor: the textarea's own word left
	in.SetSize(120, 3)
	in.Focus()
	in.SetValue("  check the airway")
	in.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'b'}, Alt: true})
	if at := in.ta.LineInfo(); at.ColumnOffset != len("  check the ") {
		t.Errorf("alt+b after a word: the cursor is at %d, want the word's start", at.ColumnOffset)
	}
}
