package physio

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// NEWS2 Scale 2 is the trainee's decision: Scale 1 until a target of 88–92 % is prescribed, and
// that only once hypercapnia is documented, by a blood gas or by the history of it.
func TestScale2IsAPrescribedDecision(t *testing.T) {
	target := action.Parse("target sats 88-92")
	cases := []struct {
		name   string
		first  string // said before the target
		scale  int
		refuse string
	}{
		{"nothing documented", "", 1, "needs hypercapnia documented first"},
		{"the oxygen alert card", "do you have an oxygen alert card?", 2, ""},
		{"home oxygen asked", "do you use oxygen at home?", 2, ""},
		{"a blood gas", "send a blood gas", 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine("patient_1", scenario(t, "copd-exacerbation"), 1, 0)
			if n := e.TrueNEWS2(); n.Scale != 1 || !strings.HasSuffix(n.String(), "(Scale 1)") {
				t.Fatalf("on arrival: %s, want Scale 1", n)
			}
			for _, a := range action.Parse(c.first) {
				e.Apply(a)
			}
			var said string
			for _, ev := range e.Apply(target[0]) {
				if ev.Kind == EventOrder {
					said = ev.Order.Say
				}
			}
			if e.Scale() != c.scale || (c.refuse == "") != (said == "") || !strings.Contains(said, c.refuse) {
				t.Errorf("Scale %d, the nurse said %q; want Scale %d and %q", e.Scale(), said, c.scale, c.refuse)
			}
		})
	}
	asthma := NewEngine("patient_1", scenario(t, "asthma-exacerbation"), 1, 0)
	asthma.Apply(action.Action{Kind: sc.KindTest, Test: "blood_gas"})
	if asthma.Apply(target[0]); asthma.Scale() != 1 {
		t.Error("an asthmatic is not hypercapnic: Scale 2 was accepted")
	}
}

// SpO2 85 % on air scores 3 on Scale 1 and 3 on Scale 2 (≤83 is 3 on Scale 2; 84–85 is 2): the
// scale changes the total, and the score says which it is.
func TestScaleChangesTheScore(t *testing.T) {
	v := Vitals{HR: 104, RR: 26, SpO2: 85, SBP: 150, TempC: 37.6, GCS: 15}
	one, two := NEWS2(v, 1, false), NEWS2(v, 2, false)
	if one.Parts.SpO2 != 3 || two.Parts.SpO2 != 2 || one.String() != "NEWS2 7 high (Scale 1)" || two.String() != "NEWS2 6 medium (Scale 2)" {
		t.Errorf("Scale 1 %s (SpO2 %d), Scale 2 %s (SpO2 %d)", one, one.Parts.SpO2, two, two.Parts.SpO2)
	}
}
