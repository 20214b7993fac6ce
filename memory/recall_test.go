package memory

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// picked lists the recalled items as "category/index=rule", the shape the inspector shows.
func picked(s Selection) []string {
	var out []string
	for _, x := range s.Items {
		out = append(out, string(x.Category)+"/"+strconv.Itoa(x.Index)+"="+string(x.Rule))
	}
	return out
}

func TestRecallRules(t *testing.T) {
	late := 100 + 15*minute // T+15:00
	tests := []struct {
		name      string
		turn      Turn
		wantRules []Rule
		want      []string
	}{
		{
			name:      "rule 1: plain talk late recalls only current vitals, state and last 3 actions",
			turn:      Turn{Now: late},
			wantRules: []Rule{RuleCore},
			want: []string{
				"stateHistory/1=core",
				"vitalsMeasurements/3=core",
				"criticalActions/2=core", "criticalActions/3=core", "criticalActions/4=core",
			},
		},
		{
			name:      "rule 2: a treatment recalls every safety disclosure however old, and the last 5 actions",
			turn:      Turn{Now: late, Parts: []Part{{Kind: PartTreatment, Name: "morphine"}}},
			wantRules: []Rule{RuleCore, RuleSafety},
			want: []string{
				"stateHistory/1=core",
				"vitalsMeasurements/3=core",
				"patientDisclosures/0=safety", // allergy, T+3
				"patientDisclosures/1=safety", // medication
				"patientDisclosures/3=safety", // contraindication
				"patientDisclosures/4=safety", // adverse reaction
				"criticalActions/0=safety", "criticalActions/1=safety", "criticalActions/2=safety",
				"criticalActions/3=safety", "criticalActions/4=safety",
			},
		},
		{
			name:      "rule 3: a question recalls disclosures of the asked topic only",
			turn:      Turn{Now: late, Parts: []Part{{Kind: PartQuestion, Name: "meds"}}},
			wantRules: []Rule{RuleCore, RuleQuestion},
			want: []string{
				"stateHistory/1=core",
				"vitalsMeasurements/3=core",
				"patientDisclosures/1=question",
				"criticalActions/2=core", "criticalActions/3=core", "criticalActions/4=core",
			},
		},
		{
			name:      "rule 5: a vitals check recalls the last 3 measurements",
			turn:      Turn{Now: late, Parts: []Part{{Kind: PartVitals}}},
			wantRules: []Rule{RuleCore, RuleVitalsTrend},
			want: []string{
				"stateHistory/1=core",
				"vitalsMeasurements/1=vitals_trend", "vitalsMeasurements/2=vitals_trend",
				"vitalsMeasurements/3=core",
				"criticalActions/2=core", "criticalActions/3=core", "criticalActions/4=core",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := chestPainMemory(t).Recall(tt.turn)
			if !reflect.DeepEqual(s.Rules, tt.wantRules) {
				t.Errorf("rules = %v, want %v", s.Rules, tt.wantRules)
			}
			if got := picked(s); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("picked\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// The window carries the conversation since its first message word for word: what came of it is
// not repeated, except safety disclosures on a treatment turn. The engine's own readings and
// state changes are not in the conversation, so they are.
func TestRecallDoesNotRepeatWhatTheWindowShows(t *testing.T) {
	late := 100 + 15*minute
	from := func(minutes float64) *float64 { t := 100 + minutes*minute; return &t }
	tests := []struct {
		name         string
		turn         Turn
		want         []string
		wantInWindow int
	}{
		{
			name: "talk: the last 3 actions are in the window",
			turn: Turn{Now: late, WindowFrom: from(8)},
			want: []string{"stateHistory/1=core", "vitalsMeasurements/3=core"}, wantInWindow: 3,
		},
		{
			name: "a window from an item's own minute shows it",
			turn: Turn{Now: late, WindowFrom: from(11)},
			want: []string{"stateHistory/1=core", "vitalsMeasurements/3=core", "criticalActions/2=core", "criticalActions/3=core"}, wantInWindow: 1,
		},
		{
			name: "treatment: safety disclosures are repeated, older actions recalled",
			turn: Turn{Now: late, WindowFrom: from(3), Parts: []Part{{Kind: PartTreatment, Name: "morphine"}}},
			want: []string{
				"stateHistory/1=core", "vitalsMeasurements/3=core",
				"patientDisclosures/0=safety", "patientDisclosures/1=safety", "patientDisclosures/3=safety", "patientDisclosures/4=safety",
				"criticalActions/0=safety",
			},
			wantInWindow: 4,
		},
		{
			name: "early phase: only what happened before the window",
			turn: Turn{Now: 100 + 9*minute, WindowFrom: from(5)},
			want: []string{
				"stateHistory/0=early", "stateHistory/1=core",
				"vitalsMeasurements/0=early", "vitalsMeasurements/1=early", "vitalsMeasurements/2=early", "vitalsMeasurements/3=core",
				"patientDisclosures/0=early", "patientDisclosures/1=early",
				"criticalActions/0=early",
				"keyQuotes/0=early", "sceneEvents/0=early", "errors/0=early",
			},
			wantInWindow: 7,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := chestPainMemory(t).Recall(tt.turn)
			if got := picked(s); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("picked\n got %v\nwant %v", got, tt.want)
			}
			if len(s.Shown) != tt.wantInWindow {
				t.Errorf("shown by the window = %d, want %d", len(s.Shown), tt.wantInWindow)
			}
		})
	}
}

func TestRecallEarlyPhaseIncludesEverything(t *testing.T) {
	m := chestPainMemory(t)
	s := m.Recall(Turn{Now: 100 + 9*minute + 59})
	if !reflect.DeepEqual(s.Rules, []Rule{RuleCore, RuleEarly}) {
		t.Fatalf("rules = %v", s.Rules)
	}
	total := 0
	for _, c := range Categories {
		total += len(m.Items(c))
	}
	if len(s.Items) != total {
		t.Fatalf("early recall picked %d of %d items", len(s.Items), total)
	}
	s = m.Recall(Turn{Now: 100 + EarlyPhase})
	if reflect.DeepEqual(s.Rules, []Rule{RuleCore, RuleEarly}) {
		t.Fatal("at exactly 10 sim minutes the early rule no longer applies")
	}
}

// The safety case: a morphine allergy disclosed at T+3 min must reach the prompt of
// "give morphine 5 mg IV" at T+15 min, however many turns came between.
func TestRecallSafetyCaseMorphineAllergy(t *testing.T) {
	m := New(0)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.Record(PatientDisclosures, Item{T: 3 * minute, Topic: TopicAllergies, Text: "morphine, I stopped breathing once"}))
	for i := range 20 { // twelve minutes of unrelated busy work
		tm := 3*minute + float64(i+1)*36
		must(m.Record(CriticalActions, Item{T: tm, Text: "reposition and reassure"}))
		must(m.Record(VitalsMeasurements, Item{T: tm, Vitals: &Vitals{HR: 90 + float64(i), SpO2: 95}}))
	}
	s := m.Recall(Turn{Now: 15 * minute, Parts: []Part{{Kind: PartTreatment, Name: "morphine"}}})
	var allergy *Selected
	for i, x := range s.Items {
		if x.Item.Topic == TopicAllergies {
			allergy = &s.Items[i]
		}
	}
	if allergy == nil || allergy.Rule != RuleSafety || !allergy.Protected() {
		t.Fatalf("the allergy must be recalled by the safety rule and protected: %+v", s.Items)
	}
	text := s.Render()
	if !strings.Contains(text, "allergies: morphine, I stopped breathing once") || !strings.HasPrefix(
		strings.SplitN(text, "\n", 3)[1], "SAFETY") {
		t.Fatalf("the rendered memory must lead with the allergy:\n%s", text)
	}
}

func TestRecallNeverChangesMemory(t *testing.T) {
	m := chestPainMemory(t)
	before, _ := json.Marshal(m)
	for _, turn := range []Turn{
		{Now: 0},
		{Now: 10000, Parts: []Part{{Kind: PartTreatment}, {Kind: PartVitals}, {Kind: PartQuestion, Name: "history"}}},
	} {
		m.Recall(turn)
	}
	after, _ := json.Marshal(m)
	if string(before) != string(after) {
		t.Fatal("recall must never change the memory")
	}
}

func TestRenderIsCompactAndRelativeToScenarioStart(t *testing.T) {
	s := chestPainMemory(t).Recall(Turn{Now: 100 + 15*minute, Parts: []Part{{Kind: PartTreatment}, {Kind: PartVitals}}})
	want := `Patient memory:
SAFETY, every allergy, contraindication, reaction and current medication disclosed:
- T+03:00 allergies: morphine, stopped breathing after a dose in 2019
- T+04:00 medications: lisinopril 10 mg daily
- T+05:30 contraindications: took sildenafil last night
- T+05:42 adverse_reactions: vomits with tramadol
State:
- T+13:00 stable: oxygen and aspirin
Vitals (oldest first):
- T+06:00 HR 110 RR 22 SpO2 94% BP 142/88
- T+12:00 HR 104 RR 20 SpO2 96% BP 136/84
- T+14:00 HR 100 RR 19 SpO2 97% BP 134/82
Actions:
- T+02:00 oxygen 15 L/min non-rebreather
- T+07:00 aspirin 300 mg chewed
- T+08:00 IV access left antecubital
- T+09:00 12-lead ECG
- T+11:00 GTN withheld
`
	if got := s.Render(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if (Selection{}).Render() != "" {
		t.Fatal("an empty selection renders as nothing")
	}
}

func TestClock(t *testing.T) {
	for in, want := range map[float64]string{
		0: "T+00:00", 59.6: "T+01:00", 754: "T+12:34", 3600: "T+1:00:00", 3725: "T+1:02:05", -90: "T-01:30",
	} {
		if got := Clock(in); got != want {
			t.Errorf("Clock(%v) = %q, want %q", in, got, want)
		}
	}
}
