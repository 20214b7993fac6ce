package action

import (
	"reflect"
	"slices"
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

func exam(region string) Action {
	if region == "pupils" {
		return Action{Kind: sc.KindPupils, Region: region}
	}
	return Action{Kind: sc.KindExamine, Region: region}
}

func exams(regions ...string) []Action {
	var out []Action
	for _, r := range regions {
		out = append(out, exam(r))
	}
	return out
}

// limbExam is an examination of the limbs on one side, of one limb when named.
func limbExam(side, limb string) Action {
	return Action{Kind: sc.KindExamine, Region: "limbs", Side: side, Limb: limb}
}

func TestParseExaminations(t *testing.T) {
	cases := []struct {
		text string
		want []Action
	}{
		{"listen to her chest", exams("auscultation")},
		{"examine the leg", []Action{limbExam("", "leg")}},
		{"check the pulses and sensation in the right foot", []Action{exam("pulses"), limbExam("right", "leg")}},
		{"check the foot's circulation", []Action{limbExam("", "leg")}},
		// A limb is examined on the side the line names: the side, and which limb.
		{"examine the left leg", []Action{limbExam("left", "leg")}},
		{"look at his right arm", []Action{limbExam("right", "arm")}},
		{"examine the left side's limbs", []Action{limbExam("left", "")}},
		{"feel the right radial pulse", exams("pulses")},
		{"examine his chest", exams("breathing", "percussion", "auscultation")},
		{"percuss the chest", exams("percussion")},
		{"look at her chest", exams("breathing")},
		{"listen to the heart", exams("heart")},
		{"heart sounds?", exams("heart")},
		{"what's the cap refill", exams("cap_refill")},
		{"check his pupils", exams("pupils")},
		{"what is her GCS?", exams("gcs")},
		{"look in her mouth", exams("airway")},
		{"feel the abdomen", exams("abdomen")},
		{"look at the skin", exams("skin")},
		{"examine him", exams("focused")},
		{"neuro exam", exams("gcs", "pupils", "limbs")},
		{"neurovascular status of the right leg", []Action{limbExam("right", "leg")}},
		{"check the foot pulses", exams("limbs")},
		{"feel her pulses", exams("pulses")},
		{"listen to the heart and lungs", exams("heart", "auscultation")},
		{"A to E assessment", exams(sc.Regions...)},
		// Not examinations: no verb, a negation, a test, a position.
		{"is her chest clear", nil},
		{"don't examine the leg", nil},
		{"chest x-ray please", []Action{{Kind: sc.KindTest, Test: "chest_xray"}}},
		{"raise her legs", []Action{{Kind: sc.KindPosition, Position: "legs_raised"}}},
		{"take a look at the monitor", []Action{kind(sc.KindAttachMonitor)}},
	}
	for _, c := range cases {
		if got := Parse(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q\n got %+v\nwant %+v", c.text, got, c.want)
		}
	}
}

// TestExaminationFindsTheStatesFindings: what an examination finds is the current state's
// finding, and it changes with the state.
func FuzzExaminations(f *testing.F) {
	for _, seed := range []string{"listen to her chest", "check the pulses and sensation in the right foot",
		"A to E", "neuro exam and pupils", "don't examine the leg, percuss", "examine examine chest heart"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, a := range Parse(text) {
			if a.Kind != sc.KindExamine && a.Kind != sc.KindPupils {
				continue
			}
			if !slices.Contains(sc.Regions, a.Region) {
				t.Fatalf("%q: examination of unknown region %q", text, a.Region)
			}
		}
	})
}
