package ui

import (
	"fmt"
	"testing"
)

func TestScratchOverlays(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {60, 16}} {
		for _, keys := range [][]string{{"?"}, {"ctrl+o", "down", "down", "down", "enter"}} {
			f := newFakeWard()
			f.traces = []TurnTrace{sampleTrace()}
			m := newTestModel(t, f, sz[0], sz[1])
			press(t, m, keys...)
			fmt.Println(screen(m))
		}
	}
}
