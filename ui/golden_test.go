package ui

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/ward-sim/ward/themes"
)

// TestGoldenMainScreen runs the whole program under teatest, for every
// theme at the two reference sizes, and compares the final screen with
// testdata/. Regenerate with: go test ./ui -run Golden -update
func TestGoldenMainScreen(t *testing.T) {
	type variant struct {
		theme   string
		noColor bool
	}
	variants := []variant{{"dark", false}, {"light", false}, {"high-contrast", false}, {"dark", true}}
	for _, v := range variants {
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			name := fmt.Sprintf("%s_%dx%d", v.theme, size[0], size[1])
			if v.noColor {
				name = "nocolor_" + name
			}
			t.Run(name, func(t *testing.T) {
				th, err := themes.New(v.theme, v.noColor)
				if err != nil {
					t.Fatal(err)
				}
				m := New(newFakeWard(), Options{Theme: th, Clipboard: io.Discard})
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(size[0], size[1]))
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
					return bytes.Contains(b, []byte("Ada Byron"))
				}, teatest.WithDuration(10*time.Second))
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
				golden.RequireEqual(t, []byte(final.View()))
			})
		}
	}
}
