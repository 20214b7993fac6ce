package scenario

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Limb is the one-sided limb of a case (a fractured shin, a calf with a deep vein thrombosis, the
// weak side of a stroke): examining it finds the case's limbs finding, the other side finds the
// sound limb; a splint or tourniquet on the other side treats nothing and is a critical error.
// A case whose limbs finding names a side must say which limb it is, and why.
type Limb struct {
	Side string `yaml:"side" required:"true"` // left | right
	// Limbs are which of that side's limbs it is: arm, leg or both; a limb of the same side not
	// listed finds the sound limb too.
	Limbs []string `yaml:"limbs" required:"true"`
	// Source is what makes the limb's findings one-sided, and the clinical source for them.
	Source string `yaml:"source" required:"true"`
	// Sound is what examining any other limb finds, the other side's or this side's other
	// limb: it names neither side nor limb ("normal: no deformity, swelling or tenderness").
	Sound string `yaml:"sound" required:"true"`
}

// LimbNames are the limbs a Limb may list, as the examination's words name them.
var LimbNames = []string{"arm", "leg"}

// Is reports whether the limb named by side and limb ("left", "leg") is the case's one-sided
// limb. An examination that names no side is of the limbs together; one that names a side but
// no limb is of that side's.
func (l *Limb) Is(side, limb string) bool {
	return l == nil || side == "" || side == l.Side && (limb == "" || slices.Contains(l.Limbs, limb))
}

// LimbSide is the side of the case's one-sided limb, "" when it has none.
func (s *Scenario) LimbSide() string {
	if s.Limb == nil {
		return ""
	}
	return s.Limb.Side
}

// sideWords finds the side a finding names, limbWords a limb.
var (
	sideWords = regexp.MustCompile(`(?i)\b(left|right)\b`)
	limbWords = regexp.MustCompile(`(?i)\b(arms?|legs?|calf|calves|shin|thigh|hand|foot|feet|toes?)\b`)
)

// checkLimb holds a case to its one-sided limb: declared when a limbs finding names a side, and
// every such finding names the declared side.
func (c *checker) checkLimb(s *Scenario) {
	sided := map[string]string{} // path → finding that names a side
	if f := s.Findings["limbs"]; sideWords.MatchString(f) {
		sided["findings.limbs"] = f
	}
	for _, name := range s.StateNames() {
		if st := s.States[name]; st != nil && sideWords.MatchString(st.Findings["limbs"]) {
			sided["states."+name+".findings.limbs"] = st.Findings["limbs"]
		}
	}
	paths := slices.Sorted(maps.Keys(sided))
	l := s.Limb
	if l == nil {
		if len(paths) > 0 {
			c.at(paths[0], "the limbs finding names a side: declare the one-sided limb (limb: {side, limbs, source, sound})")
		}
		return
	}
	if l.Side != "left" && l.Side != "right" {
		c.at("limb.side", "side %q must be left or right", l.Side)
	}
	if len(l.Limbs) == 0 {
		c.at("limb.limbs", "name the limb: arm, leg or both")
	}
	for _, name := range l.Limbs {
		if !slices.Contains(LimbNames, name) {
			c.at("limb.limbs", "limb %q must be arm or leg", name)
		}
	}
	if strings.TrimSpace(l.Source) == "" {
		c.at("limb.source", "say what makes the limb one-sided, and its clinical source")
	}
	switch {
	case strings.TrimSpace(l.Sound) == "":
		c.at("limb.sound", "say what examining the other limbs finds")
	case sideWords.MatchString(l.Sound) || limbWords.MatchString(l.Sound):
		c.at("limb.sound", "the sound limb's finding is said of any other limb: name no side or limb in it")
	}
	for _, path := range paths {
		if !strings.Contains(strings.ToLower(sided[path]), l.Side) {
			c.at(path, "the limbs finding names a side but not the one-sided limb's (%s)", l.Side)
		}
	}
}
