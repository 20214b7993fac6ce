package session

import (
	"context"
	"fmt"
	"testing"
)

// The patient a case's variants drew is the one the roster, the header and the Patient's persona
// name: the engine's, read from it, never the case as written.
func TestTheDrawnPatientIsTheOneOnTheRoster(t *testing.T) {
	names := map[string]bool{}
	for _, seed := range []int64{1, 2, 3} {
		r := newRigWith(t, func(c *Config) { c.Seed = seed })
		r.s.Turn(context.Background(), "/admit patient_1 copd-exacerbation", func(Event) {})
		e, err := r.s.sim.engine("patient_1")
		if err != nil || e == nil {
			t.Fatalf("seed %d: no engine (%v)", seed, err)
		}
		drawn := e.Scenario().Demographics
		facts := r.s.reg.Patients["patient_1"].Facts
		if facts["name"] != drawn.Name || facts["age"] != drawn.Age {
			t.Errorf("seed %d: the roster says %v, %v; the engine's patient is %s, %d", seed, facts["name"], facts["age"], drawn.Name, drawn.Age)
		}
		if p := persona(e.Scenario()); p.Name != drawn.Name || p.Age != drawn.Age {
			t.Errorf("seed %d: the Patient plays %s, %d; drawn %s, %d", seed, p.Name, p.Age, drawn.Name, drawn.Age)
		}
		names[fmt.Sprintf("%s, %d", drawn.Name, drawn.Age)] = true
	}
	if len(names) < 2 {
		t.Errorf("three seeds drew one patient: %v", names)
	}
}
