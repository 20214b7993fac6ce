package memory

import (
	"reflect"
	"strings"
	"testing"
)

// fivePartMessage is the five-part compound message and the parts the engine's parser finds in it.
const fivePartMessage = "I'm applying oxygen via non-rebreather at 15L/min, checking vitals… " +
	"What medications do you take? Any allergies? When did this start?"

var fivePartParts = []Part{
	{Kind: PartTreatment, Name: "oxygen"},
	{Kind: PartVitals},
	{Kind: PartQuestion, Name: "medications"},
	{Kind: PartQuestion, Name: "allergies"},
	{Kind: PartQuestion, Name: "onset"},
}

func TestSeedCompoundMessage(t *testing.T) {
	c := DetectCompound(fivePartParts, fivePartMessage)
	if c.NumPredict != 4000 || !c.IsCompound() {
		t.Fatalf("num_predict = %d, compound = %v; want 4000, true", c.NumPredict, c.IsCompound())
	}
	if !reflect.DeepEqual(c.Checklist, fivePartParts) {
		t.Fatalf("checklist = %v, want the 5 parts in order", c.Checklist)
	}
	if got := c.Summary(); got != "5 parts: oxygen, vitals, medications?, allergies?, onset?" {
		t.Errorf("summary = %q", got)
	}
	text := c.Instruction()
	for _, want := range []string{"5 things", "1. treatment (oxygen)", "2. vitals check", "3. question about medications",
		"4. question about allergies", "5. question about onset"} {
		if !strings.Contains(text, want) {
			t.Errorf("instruction lacks %q:\n%s", want, text)
		}
	}
}

func TestDetectCompoundCounts(t *testing.T) {
	tests := []struct {
		name       string
		parts      []Part
		text       string
		wantParts  int
		wantBudget int
	}{
		{"nothing", nil, "hello", 0, 2000},
		{"one treatment", []Part{{Kind: PartTreatment, Name: "aspirin"}}, "give aspirin 300 mg", 1, 2000},
		{"vitals and a question", []Part{{Kind: PartVitals}, {Kind: PartQuestion, Name: "pain"}}, "vitals please. pain?", 2, 2000},
		{"three unnamed questions", nil, "Who? What? Why?", 3, 3000},
		{"question marks beyond named questions", []Part{{Kind: PartQuestion, Name: "allergies"}, {Kind: PartVitals}}, "vitals. allergies? and the rest??", 4, 3000},
		{"repeated part counts once", []Part{{Kind: PartQuestion, Name: "meds"}, {Kind: PartQuestion, Name: "Medications"}}, "meds? medications?", 2, 2000},
		{"two treatments count twice", []Part{{Kind: PartTreatment, Name: "oxygen"}, {Kind: PartTreatment, Name: "aspirin"}, {Kind: PartVitals}}, "", 3, 3000},
		{"six parts", append(append([]Part{}, fivePartParts...), Part{Kind: PartQuestion, Name: "history"}), "a? b? c? d?", 6, 4000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DetectCompound(tt.parts, tt.text)
			if len(c.Checklist) != tt.wantParts || c.NumPredict != tt.wantBudget {
				t.Fatalf("got %d parts, num_predict %d; want %d, %d", len(c.Checklist), c.NumPredict, tt.wantParts, tt.wantBudget)
			}
			if c.IsCompound() != (tt.wantParts >= 3) || (c.Instruction() == "") == c.IsCompound() {
				t.Fatalf("a checklist instruction is given exactly when there are 3 or more parts")
			}
		})
	}
}

func TestMissingFindsUnaddressedParts(t *testing.T) {
	checklist := DetectCompound(fivePartParts, fivePartMessage).Checklist
	tests := []struct {
		name  string
		reply string
		want  []string // names (or kinds) of the missing parts
	}{
		{
			name: "all covered",
			reply: `*The mask fogs as she breathes.* Monitor: HR 112, SpO2 93%, BP 150/90. ` +
				`"I take metformin. I'm allergic to penicillin. It started about an hour ago."`,
		},
		{
			name:  "answers stop after medications",
			reply: `*She settles under the mask.* HR 112, SpO2 93%. "Just my blood pressure tablets."`,
			want:  []string{"allergies", "onset"},
		},
		{
			name:  "vitals named without numbers are not a measurement",
			reply: `"The oxygen helps. My pulse is racing. I take nothing. No allergies. Since this morning."`,
			want:  []string{"vitals"},
		},
		{
			name:  "empty reply misses everything",
			reply: "",
			want:  []string{"oxygen", "vitals", "medications", "allergies", "onset"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Missing(checklist, tt.reply) {
				got = append(got, nameOf(p))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("missing = %v, want %v", got, tt.want)
			}
		})
	}
}

func nameOf(p Part) string {
	if p.Name != "" {
		return p.Name
	}
	return string(p.Kind)
}

func TestFollowUpAsksOnlyForMissingParts(t *testing.T) {
	missing := []Part{{Kind: PartQuestion, Name: "allergies"}, {Kind: PartQuestion, Name: "last_meal"}}
	text := FollowUp(missing)
	if !strings.Contains(text, "1. question about allergies") || !strings.Contains(text, "2. question about last meal") ||
		strings.Contains(text, "3.") {
		t.Fatalf("follow-up should list exactly the missing parts:\n%s", text)
	}
	if FollowUp(nil) != "" {
		t.Fatal("nothing missing, nothing to ask")
	}
}

func TestMissingNormalizesRawParserParts(t *testing.T) {
	got := Missing([]Part{{Kind: PartQuestion, Name: "Meds"}, {Kind: PartTreatment, Name: "Oxygen"}}, `"I take an inhaler." *The mask hisses.*`)
	if len(got) != 0 {
		t.Fatalf("raw parser spellings should be understood: missing %v", got)
	}
}
