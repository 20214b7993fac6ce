package memory

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

const minute = 60.0

// chestPainMemory is a 14-minute chest-pain case; the scenario started at sim time 100 s so tests
// also prove times are taken relative to the patient's start, not the session clock.
func chestPainMemory(t testing.TB) *Memory {
	m := New(100)
	at := func(minutes float64) float64 { return 100 + minutes*minute }
	rec := func(c Category, it Item) {
		if err := m.Record(c, it); err != nil {
			t.Fatalf("record %s: %v", c, err)
		}
	}
	rec(StateHistory, Item{T: at(0), Text: "initial: scenario start"})
	rec(VitalsMeasurements, Item{T: at(0), Vitals: &Vitals{HR: 118, RR: 26, SpO2: 90, SBP: 150, DBP: 92}})
	rec(KeyQuotes, Item{T: at(1), Speaker: "patient", Text: "It's like a weight on my chest"})
	rec(CriticalActions, Item{T: at(2), Text: "oxygen 15 L/min non-rebreather"})
	rec(PatientDisclosures, Item{T: at(3), Topic: "allergy", Text: "morphine, stopped breathing after a dose in 2019"})
	rec(PatientDisclosures, Item{T: at(4), Topic: "meds", Text: "lisinopril 10 mg daily"})
	rec(PatientDisclosures, Item{T: at(5), Topic: "history", Text: "type 2 diabetes for 12 years"})
	rec(PatientDisclosures, Item{T: at(5.5), Topic: "contraindications", Text: "took sildenafil last night"})
	rec(PatientDisclosures, Item{T: at(5.7), Topic: "adverse reactions", Text: "vomits with tramadol"})
	rec(VitalsMeasurements, Item{T: at(6), Vitals: &Vitals{HR: 110, RR: 22, SpO2: 94, SBP: 142, DBP: 88}})
	rec(CriticalActions, Item{T: at(7), Text: "aspirin 300 mg chewed"})
	rec(CriticalActions, Item{T: at(8), Text: "IV access left antecubital"})
	rec(CriticalActions, Item{T: at(9), Text: "12-lead ECG"})
	rec(SceneEvents, Item{T: at(10), Text: "wife arrives, anxious"})
	rec(CriticalActions, Item{T: at(11), Text: "GTN withheld"})
	rec(VitalsMeasurements, Item{T: at(12), Vitals: &Vitals{HR: 104, RR: 20, SpO2: 96, SBP: 136, DBP: 84}})
	rec(StateHistory, Item{T: at(13), Text: "stable: oxygen and aspirin"})
	rec(Errors, Item{T: at(13.5), Text: "no reassessment after aspirin"})
	rec(VitalsMeasurements, Item{T: at(14), Vitals: &Vitals{HR: 100, RR: 19, SpO2: 97, SBP: 134, DBP: 82}})
	return m
}

func TestRecordRefusesUnreadableShapes(t *testing.T) {
	tests := []struct {
		name string
		c    Category
		it   Item
	}{
		{"unknown category", "gossip", Item{Text: "x"}},
		{"empty action", CriticalActions, Item{Text: "  "}},
		{"vitals without values", VitalsMeasurements, Item{Vitals: &Vitals{}}},
		{"vitals missing", VitalsMeasurements, Item{Text: "HR 80"}},
		{"NaN vitals", VitalsMeasurements, Item{Vitals: &Vitals{HR: math.NaN()}}},
		{"infinite time", CriticalActions, Item{T: math.Inf(1), Text: "x"}},
		{"disclosure without topic", PatientDisclosures, Item{Text: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(0)
			if err := m.Record(tt.c, tt.it); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

func TestRecordNormalizesDisclosureTopics(t *testing.T) {
	m := chestPainMemory(t)
	var topics []Topic
	for _, it := range m.PatientDisclosures {
		topics = append(topics, it.Topic)
	}
	want := []Topic{TopicAllergies, TopicMedications, TopicHistory, TopicContraindications, TopicAdverseReactions}
	if !reflect.DeepEqual(topics, want) {
		t.Fatalf("topics = %v, want %v", topics, want)
	}
}

func TestLLMAdditionsAreValidated(t *testing.T) {
	tests := []struct {
		name    string
		add     func(m *Memory) error
		wantErr error
	}{
		{"quote ok", func(m *Memory) error { return m.AddQuote(60, "patient", "Please don't leave me") }, nil},
		{"finding ok", func(m *Memory) error { return m.AddAssessment(60, "wheeze both bases") }, nil},
		{"empty", func(m *Memory) error { return m.AddAssessment(60, " \t ") }, ErrEmpty},
		{"too long", func(m *Memory) error { return m.AddQuote(60, "", strings.Repeat("a", MaxLLMText+1)) }, ErrTooLong},
		{"control char", func(m *Memory) error { return m.AddQuote(60, "", "help\x1b[2J me") }, ErrControlChars},
		{"newline", func(m *Memory) error { return m.AddAssessment(60, "line one\nline two") }, ErrControlChars},
		{"bad utf8", func(m *Memory) error { return m.AddAssessment(60, "a\xffb") }, ErrControlChars},
		{"bad speaker", func(m *Memory) error { return m.AddQuote(60, "pa\x00tient", "hi") }, ErrControlChars},
		{"duplicate", func(m *Memory) error {
			_ = m.AddAssessment(30, "pale and sweaty")
			return m.AddAssessment(60, "pale and sweaty")
		}, ErrDuplicate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(0)
			err := tt.add(m)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestMaxLLMTextCountsCharactersNotBytes(t *testing.T) {
	m := New(0)
	if err := m.AddQuote(1, "", strings.Repeat("é", MaxLLMText)); err != nil {
		t.Fatalf("a %d-character quote in a 2-byte script must fit: %v", MaxLLMText, err)
	}
}

func TestMemoryJSONRoundTrip(t *testing.T) {
	m := chestPainMemory(t)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Memory
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*m, back) {
		t.Fatalf("round trip changed the memory:\n%s", b)
	}
	if !strings.Contains(string(b), `"patientDisclosures":[{"t":280,"text":"morphine`) {
		t.Fatalf("JSON should use the stored category names: %s", b)
	}
}

func TestPruneDropsOnlyUnchangedRepeatVitals(t *testing.T) {
	m := chestPainMemory(t)
	safetyBefore := append([]Item(nil), m.PatientDisclosures...)
	errorsBefore := append([]Item(nil), m.Errors...)
	m.VitalsMeasurements = nil
	for i, v := range []Vitals{
		{HR: 100, SpO2: 94},                    // first: kept
		{HR: 102, SpO2: 95},                    // within thresholds of the kept reading: dropped
		{HR: 103, SpO2: 95},                    // still within: dropped
		{HR: 105, SpO2: 95},                    // HR drifted 5 from the last kept: kept
		{HR: 105, SpO2: 95},                    // repeat: dropped
		{HR: 105, SpO2: 95, SBP: 120, DBP: 80}, // BP measured for the first time: kept
		{HR: 104, SpO2: 95, SBP: 121, DBP: 80}, // latest: always kept
	} {
		v := v
		if err := m.Record(VitalsMeasurements, Item{T: float64(i * 60), Vitals: &v}); err != nil {
			t.Fatal(err)
		}
	}
	dropped := m.Prune()
	if want := []string{"T-00:40 HR 102 SpO2 95%", "T+00:20 HR 103 SpO2 95%", "T+02:20 HR 105 SpO2 95%"}; !reflect.DeepEqual(dropped, want) {
		t.Fatalf("dropped %q, want %q", dropped, want)
	}
	var times []float64
	for _, it := range m.VitalsMeasurements {
		times = append(times, it.T)
	}
	if want := []float64{0, 180, 300, 360}; !reflect.DeepEqual(times, want) {
		t.Fatalf("kept times %v, want %v", times, want)
	}
	if !reflect.DeepEqual(m.PatientDisclosures, safetyBefore) || !reflect.DeepEqual(m.Errors, errorsBefore) {
		t.Fatal("prune must never touch disclosures or errors")
	}
}

func TestPruneSurvivesHandEditedJSON(t *testing.T) {
	var m Memory
	doc := `{"vitalsMeasurements":[{"t":0,"vitals":{"hr":90}},{"t":60,"text":"HR 90"},{"t":120,"vitals":{"hr":90}}]}`
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	if dropped := len(m.Prune()); dropped != 0 {
		t.Fatalf("a reading without values is kept, not guessed about: dropped %d", dropped)
	}
}

// TestPruneOnceAsAfterEachReading: a run of readings pruned once leaves the memory, and drops the
// lines, that pruning after each reading of it does (a /wait prunes each patient once).
func TestPruneOnceAsAfterEachReading(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 3))
	for run := range 2000 {
		each, once := New(30), New(30)
		var droppedEach, droppedOnce []string
		hr := 80.0
		for batch := range 1 + r.IntN(5) {
			for i := range r.IntN(12) {
				hr += float64(r.IntN(9) - 4)
				v := Vitals{HR: hr, SpO2: float64(90 + r.IntN(3))}
				it := Item{T: float64(batch*600 + i*60), Vitals: &v}
				if err := each.Record(VitalsMeasurements, it); err != nil {
					t.Fatal(err)
				}
				droppedEach = append(droppedEach, each.Prune()...)
				if err := once.Record(VitalsMeasurements, it); err != nil {
					t.Fatal(err)
				}
			}
			droppedOnce = append(droppedOnce, once.Prune()...)
			if !reflect.DeepEqual(each.VitalsMeasurements, once.VitalsMeasurements) || !reflect.DeepEqual(droppedEach, droppedOnce) {
				t.Fatalf("run %d, batch %d: kept %v dropped %q after each; kept %v dropped %q once",
					run, batch, each.VitalsMeasurements, droppedEach, once.VitalsMeasurements, droppedOnce)
			}
		}
	}
}
