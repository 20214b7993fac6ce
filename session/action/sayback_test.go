package action

import (
	"strings"
	"testing"
)

// A member closes the loop as a resuscitation team speaks: the order said back in few words and
// said done, without its dose or route; a line that is not yet done, denies it, names something
// else or brings its own amount is no say-back.
func TestSaysBack(t *testing.T) {
	for _, c := range []struct {
		said, order string
		want        bool
	}{
		{"adrenaline in", "adrenaline 1 mg IV", true},
		{"adrenaline's in", "give adrenaline 1mg IV please", true},
		{"adrenaline given", "adrenaline 1 mg IV", true},
		{"epinephrine given", "adrenaline 1 mg IV", true}, // the drug by another of its names
		{"amiodarone in", "amiodarone 300 mg IV", true},
		{"charged", "charge to 150 joules", true},
		{"charged, stand clear", "charge the defib to 150 J", true},
		{"shocking now… shock delivered", "shock", true},
		{"shocked", "deliver a shock", true},
		{"fundus rubbed up", "rub up the fundus", true},
		{"started", "start compressions", false}, // the order's verb alone names nothing
		{"oxygen on", "15 litres oxygen via non-rebreather", true},
		{"pads on", "pads on please", true},
		{"cannula in", "IV access please", false}, // another word for it: the parser reads it (Parse)
		{"line in", "IV line please", true},
		{"IV's in", "IV access", true},
		{"compressions restarted", "restart compressions", true},
		{"done", "adrenaline 1 mg IV", false},       // said back nothing
		{"adrenaline", "adrenaline 1 mg IV", false}, // said back, not done
		{"drawing up adrenaline", "adrenaline 1 mg IV", false},
		{"adrenaline not in yet", "adrenaline 1 mg IV", false},
		{"amiodarone in", "adrenaline 1 mg IV", false},      // another drug
		{"1 mg adrenaline in", "adrenaline 1 mg IV", false}, // its own amount: an action as said
		{"amiodarone in 5 minutes", "amiodarone 300 mg IV", false},
		{"given", "give adrenaline 1 mg", false}, // the order's verb is not what it is
		{"it's on", "put the oxygen on", false},
		{"pads on", "oxygen on", false}, // "on" says it is done, not what
		{"", "adrenaline 1 mg IV", false},
	} {
		if got := SaysBack(c.said, c.order); got != c.want {
			t.Errorf("SaysBack(%q, %q) = %v, want %v", c.said, c.order, got, c.want)
		}
	}
}

// Whatever is said, SaysBack never panics; a line that denies or brings an amount is never a
// say-back; and an order said back word for word with "done" is one whenever it names
// something beyond its verb, its amounts and its route.
func FuzzSaysBack(f *testing.F) {
	f.Add("adrenaline in", "adrenaline 1 mg IV")
	f.Add("charged", "charge to 150 joules")
	f.Add("shocking now… shock delivered", "shock")
	f.Add("not given", "give it")
	f.Fuzz(func(t *testing.T, said, order string) {
		got := SaysBack(said, order)
		for _, lx := range flatten(said) {
			if got && (lx.cat == catNeg || lx.cat == catPrep || lx.cat == catNum) {
				t.Fatalf("SaysBack(%q, %q): a say-back with %q", said, order, lx.word)
			}
		}
		if SaysBack(said, "") {
			t.Fatalf("SaysBack(%q, \"\"): said back an empty order", said)
		}
		if strings.ContainsAny(order, "0123456789") {
			return
		}
		denies := false
		for _, o := range flatten(order) {
			denies = denies || o.cat == catNeg || o.cat == catPrep
		}
		if !denies && SaysBack(order+" done", order) != echoesItself(order) {
			t.Fatalf("%q said back with done: %v", order, SaysBack(order+" done", order))
		}
	})
}

// echoesItself reports whether order names anything a say-back could echo.
func echoesItself(order string) bool {
	lx := flatten(order)
	for _, o := range lx {
		for _, s := range lx {
			if echoes(s, o) {
				return true
			}
		}
	}
	return false
}
