package knowledge

import "testing"

func TestIsProtocolQuestion(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"What is the adrenaline dose in anaphylaxis?", true},
		{"what's the max dose of paracetamol", true},
		{"How often can I repeat IM adrenaline?", true},
		{"Can I give GTN after sildenafil?", true},
		{"is it safe to give morphine with a codeine allergy?", true},
		{"What's the target sats for COPD?", true},
		{"Which NEWS2 score needs an emergency response?", true},
		{"What does SBAR stand for?", true},
		{"remind me the steps of I-PASS", true},
		{"can you tell me the naloxone dose?", true},
		{"when should NIV be considered?", true},
		{"What is the guideline for hypoglycaemia treatment?", true},
		{"What is his target saturation?", true},

		{"give 0.5 mg adrenaline IM", false},
		{"Adrenaline 0.5 mg IM into the thigh.", false},
		{"any allergies?", false},
		{"How are you feeling?", false},
		{"what dose of insulin do you take?", false},
		{"How long have you had the pain?", false},
		{"What's her BP?", false},
		{"What is his NEWS2 score?", false},
		{"what's the patient's glucose?", false},
		{"/vitals", false},
		{"", false},
		{"checking the dose chart now", false},
		{"What should I do next?", false}, // a question about this patient, for the team's plan
	}
	for _, tt := range tests {
		if got := IsProtocolQuestion(tt.text); got != tt.want {
			t.Errorf("IsProtocolQuestion(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
