package scenario

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"

	"gopkg.in/yaml.v3"
)

// Arrest is how a scenario's cardiac arrest plays: its reversible cause, the state a return of
// circulation leads to, and whether it can be survived at all. A scenario reaches an arrest by
// entering a state whose rhythm has no output (Rhythm.Arrest).
type Arrest struct {
	Cause string `yaml:"cause"` // one of the ALS model's causes; empty for a primary cardiac arrest
	// Side is the side of a one-sided cause (a tension pneumothorax): treating the other side is
	// a critical error and treats nothing.
	Side string `yaml:"side"`
	ROSC string `yaml:"rosc"` // the state a return of spontaneous circulation enters; none if not survivable
	// Survivable false: nothing brings the heart back, and deciding to stop is the lesson.
	Survivable *bool `yaml:"survivable"`
}

// CanSurvive reports whether the arrest can end in ROSC.
func (a *Arrest) CanSurvive() bool { return a.Survivable == nil || *a.Survivable }

// ALSModel is the arrest model's data (arrest.yaml): the chances of ROSC and what changes them,
// the rhythm's decay without flow, the capnography, and the reversible causes.
type ALSModel struct {
	Sources     map[string]string `yaml:"sources"`
	Assumptions []string          `yaml:"assumptions"`
	Shock       []struct {
		By     Seconds `yaml:"by"`
		Chance float64 `yaml:"chance"`
	} `yaml:"shock"`
	NonShockable        float64 `yaml:"non_shockable"`
	CompressionFraction []struct {
		Below  float64 `yaml:"below"`
		Factor float64 `yaml:"factor"`
	} `yaml:"compression_fraction"`
	PoorCompressions float64 `yaml:"poor_compressions"`
	Amiodarone       float64 `yaml:"amiodarone"`
	NoAdrenaline     float64 `yaml:"no_adrenaline"`
	LateAdrenaline   float64 `yaml:"late_adrenaline"`
	NoFlow           struct {
		FineVF   Seconds `yaml:"fine_vf"`
		Asystole Seconds `yaml:"asystole"`
		WithCPR  float64 `yaml:"with_cpr"`
	} `yaml:"no_flow"`
	EtCO2 struct {
		None float64 `yaml:"none"`
		Poor float64 `yaml:"poor"`
		Good float64 `yaml:"good"`
	} `yaml:"etco2"`
	Causes []Cause `yaml:"causes"`
}

// Cause is one of the 4 Hs and 4 Ts: what points to it and what treats it.
type Cause struct {
	ID        string  `yaml:"id"`
	Name      string  `yaml:"name"`
	Findings  string  `yaml:"findings"` // what points to it
	Treatment string  `yaml:"treatment"`
	TreatedBy []Match `yaml:"treated_by"`
}

//go:embed arrest.yaml
var alsYAML []byte

var als = sync.OnceValues(func() (*ALSModel, error) {
	var m ALSModel
	if err := yaml.Unmarshal(alsYAML, &m); err != nil {
		return nil, fmt.Errorf("arrest.yaml: %w", err)
	}
	return &m, m.check()
})

// ALS is the arrest model. The data is embedded and its test checks it, so an error is a
// programming error.
func ALS() *ALSModel {
	m, err := als()
	if err != nil {
		panic(err)
	}
	return m
}

func (m *ALSModel) check() error {
	if len(m.Shock) == 0 || m.Shock[len(m.Shock)-1].By != 0 {
		return fmt.Errorf("arrest.yaml: shock needs rows ending with by: 0")
	}
	for _, c := range m.Causes {
		for _, t := range c.TreatedBy {
			for _, k := range t.Kind {
				if !slices.Contains(ActionKinds, ActionKind(k)) {
					return fmt.Errorf("arrest.yaml: cause %s: unknown kind %q", c.ID, k)
				}
			}
		}
	}
	return nil
}

// ShockChance is the chance one shock given this long after collapse ends VF or pulseless VT.
func (m *ALSModel) ShockChance(sinceCollapse float64) float64 {
	for _, row := range m.Shock {
		if row.By == 0 || sinceCollapse <= float64(row.By) {
			return row.Chance
		}
	}
	return 0
}

// FractionFactor is the factor a compression fraction puts on a chance.
func (m *ALSModel) FractionFactor(fraction float64) float64 {
	for _, row := range m.CompressionFraction {
		if fraction < row.Below {
			return row.Factor
		}
	}
	return 1
}

// Cause returns the cause with id, or nil.
func (m *ALSModel) Cause(id string) *Cause {
	for i := range m.Causes {
		if m.Causes[i].ID == id {
			return &m.Causes[i]
		}
	}
	return nil
}

// hasArrestState reports whether any state has an arrest rhythm.
func (s *Scenario) hasArrestState() bool {
	return slices.ContainsFunc(s.StateNames(), func(n string) bool {
		st := s.States[n]
		return st != nil && st.rhythm.Arrest()
	})
}

// checkArrest: a state with an arrest rhythm needs an arrest block, and an arrest block needs
// its ROSC state, a known cause, and a state that is an arrest.
func (c *checker) checkArrest(s *Scenario) {
	for _, n := range s.StateNames() {
		if st := s.States[n]; st != nil {
			st.rhythm, _ = ParseRhythm(st.Rhythm)
		}
	}
	if s.Arrest == nil && s.hasArrestState() {
		c.at("states", "a state with an arrest rhythm needs an arrest block (arrest: {rosc: STATE})")
	}
	c.checkArrestBlock(s)
}

// checkArrestBlock: an arrest needs its ROSC state, a known cause, and at least one state that is
// an arrest.
func (c *checker) checkArrestBlock(s *Scenario) {
	a := s.Arrest
	if a == nil {
		return
	}
	if a.ROSC == "" && a.CanSurvive() {
		c.at("arrest.rosc", "rosc names the state a return of circulation enters (leave it out only with survivable: false)")
	}
	if st, ok := s.States[a.ROSC]; a.ROSC != "" && (!ok || st == nil) {
		c.at("arrest.rosc", "rosc %q is not one of the states", a.ROSC)
	} else if ok && st != nil {
		if r, _ := ParseRhythm(st.Rhythm); r.Arrest() {
			c.at("arrest.rosc", "rosc state %q has an arrest rhythm (%s)", a.ROSC, r)
		}
	}
	if a.Cause != "" && ALS().Cause(a.Cause) == nil {
		c.at("arrest.cause", "unknown cause %q", a.Cause)
	}
	if !s.hasArrestState() {
		c.at("arrest", "an arrest block needs a state with an arrest rhythm (%s, %s, %s, %s or %s)",
			CoarseVF, FineVF, PulselessVT, PEA, Asystole)
	}
}
