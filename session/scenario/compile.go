package scenario

import (
	"maps"
	"math"
	"sort"
)

// compile precomputes what the engine reads every sim second, so a tick is
// array arithmetic with no map lookups. It runs only on a valid scenario.
func (s *Scenario) compile() {
	base := DefaultTarget
	for name, val := range s.States[s.InitialState].Vitals {
		v, _ := ParseVital(name)
		base[v] = val
	}
	pupils := s.States[s.InitialState].Pupils
	if pupils == "" {
		pupils = NormalPupils
	}
	for name, st := range s.States {
		st.name = name
		if st.Pupils == "" {
			st.Pupils = pupils
		}
		st.Results = withDefaults(st.Results, s.States[s.InitialState].Results)
		st.target = base
		for vn, val := range st.Vitals {
			v, _ := ParseVital(vn)
			st.target[v] = val
		}
		tau := DefaultTau
		if d, ok := st.Tau["default"]; ok {
			for v := range tau {
				tau[v] = float64(d)
			}
		}
		for vn, d := range st.Tau {
			if v, ok := ParseVital(vn); ok {
				tau[v] = float64(d)
			}
		}
		for v := range tau {
			st.alpha[v] = 1 - math.Exp(-1/tau[v])
		}
		st.out = nil
	}
	s.resolveFindings()
	s.resolveCourses()
	n := 0
	for i := range s.Transitions {
		t := &s.Transitions[i]
		t.firstCondition = n
		n += len(t.When)
		for j := range t.When {
			if c := &t.When[j]; c.Vital != "" {
				c.vital, _ = ParseVital(c.Vital)
			}
		}
		for _, from := range t.From {
			s.States[from].out = append(s.States[from].out, i)
		}
	}
	s.conditions = n
}

// withDefaults is own with what it lacks of defaults.
func withDefaults(own, defaults map[string]string) map[string]string {
	out := maps.Clone(defaults)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, own)
	return out
}

// NormalPupils is what a state that says nothing about the pupils shows.
const NormalPupils = "equal, mid-sized and reacting to light"

// StateNames returns the state ids, sorted.
func (s *Scenario) StateNames() []string {
	names := make([]string, 0, len(s.States))
	for n := range s.States {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// resolveCourses sets where each state drifts: its own course, or else the first transition out
// of it that fires on time alone, unless that leads into a cardiac arrest: an arrest comes
// suddenly, and its state's vitals are what the heart leaves, not a target to drift toward.
func (s *Scenario) resolveCourses() {
	for _, st := range s.States {
		st.toward, st.over = nil, 0
		if c := st.Course; c != nil {
			st.toward, st.over = s.States[c.To], float64(c.Over)
		}
	}
	for i := range s.Transitions {
		t := &s.Transitions[i]
		over := t.timeAlone()
		if over <= 0 || s.States[t.To].rhythm.Arrest() {
			continue
		}
		for _, from := range t.From {
			if st := s.States[from]; st.toward == nil && st.Course == nil {
				st.toward, st.over = s.States[t.To], over
			}
		}
	}
}

// timeAlone is the time in state after which the transition fires whatever else happens, and 0
// when nothing but time can fire it (all of its conditions are needed, or none is a time).
func (t *Transition) timeAlone() float64 {
	if t.AllRequired() && len(t.When) > 1 {
		return 0
	}
	for _, c := range t.When {
		if c.TimeInState != nil && *c.TimeInState > 0 {
			return float64(*c.TimeInState)
		}
	}
	return 0
}
