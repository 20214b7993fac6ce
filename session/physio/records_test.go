package physio

import (
	"slices"
	"testing"
)

func TestMomentsAndThePreviousMoment(t *testing.T) {
	at := func(times ...float64) []Reading {
		rs := make([]Reading, len(times))
		for i, t := range times {
			rs[i] = Reading{T: t, NEWS2: i} // NEWS2 tells the readings apart
		}
		return rs
	}
	for _, c := range []struct {
		name    string
		log     []Reading
		moments []int // NEWS2 of the readings that stand for each moment
		prev    int   // NEWS2 of the previous moment's, -1 for none
	}{
		{"nothing measured", nil, nil, -1},
		{"one reading", at(60), []int{0}, -1},
		{"one moment read twice", at(60, 60), []int{1}, -1},
		{"two moments", at(60, 120), []int{0, 1}, 0},
		{"a check in the nurse's second", at(60, 120, 120), []int{0, 2}, 0},
		{"the moment before read twice", at(60, 60, 120), []int{1, 2}, 1},
		{"three readings of one second after two moments", at(0, 60, 120, 120, 120), []int{0, 1, 4}, 1},
	} {
		var moments []int
		for r := range Moments(c.log) {
			moments = append(moments, r.NEWS2)
		}
		if !slices.Equal(moments, c.moments) {
			t.Errorf("%s: moments %v, want %v", c.name, moments, c.moments)
		}
		prev, ok := PreviousMoment(c.log)
		if got := map[bool]int{true: prev.NEWS2, false: -1}[ok]; got != c.prev {
			t.Errorf("%s: the previous moment's reading is %d, want %d", c.name, got, c.prev)
		}
	}
}
