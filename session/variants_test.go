package session

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/ward-sim/ward/agents"
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

// Each patient's persona is made once and kept: the same on every turn as made afresh, and each
// patient's their own.
func TestAPatientsPersonaIsKept(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 2 })
	r.s.Turn(context.Background(), "/admit patient_1 copd-exacerbation", func(Event) {})
	r.s.Turn(context.Background(), "/admit patient_2 opioid-overdose", func(Event) {})
	var kept []*agents.Persona
	for _, id := range []string{"patient_1", "patient_2"} {
		e, err := r.s.sim.engine(id)
		if err != nil || e == nil {
			t.Fatalf("%s: no engine (%v)", id, err)
		}
		first := r.s.persona(e.Scenario())
		if again := r.s.persona(e.Scenario()); again != first {
			t.Errorf("%s: the persona was made again", id)
		}
		if afresh := persona(e.Scenario()); !reflect.DeepEqual(first, afresh) {
			t.Errorf("%s: the kept persona\n%+v\ndiffers from one made afresh\n%+v", id, first, afresh)
		}
		kept = append(kept, first)
	}
	if kept[0].ChiefComplaint == kept[1].ChiefComplaint {
		t.Errorf("two patients were given one persona: %+v", kept[0])
	}
}
