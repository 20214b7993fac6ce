package analyzer

import (
	"context"
	"regexp"
	"slices"
	"testing"
)

func TestRulesDecide(t *testing.T) {
	roster := []string{"patient_15", "patient_4"}
	tests := []struct {
		name    string
		text    string
		active  string
		roster  []string
		pattern *regexp.Regexp
		action  Action
		id      string
		sure    bool
	}{
		// The multi-patient walkthrough, turn by turn.
		{"walkthrough 1", "review patient_4", "", nil, nil, ActionActivateNew, "patient_4", true},
		{"walkthrough 2", "yes proceed", "patient_4", []string{"patient_4"}, nil, ActionUnchanged, "patient_4", true},
		{"walkthrough 3", "switch to patient_15", "patient_4", []string{"patient_4"}, nil, ActionActivateNew, "patient_15", true},
		{"walkthrough 4", "clear patient context", "patient_15", roster, nil, ActionClear, "", true},

		// The reference decision table.
		{"start review", "start review for patient_4", "", nil, nil, ActionActivateNew, "patient_4", true},
		{"switch known", "switch to patient_4", "patient_15", roster, nil, ActionSwitchExisting, "patient_4", true},
		{"bare id known", "patient_4", "patient_15", roster, nil, ActionSwitchExisting, "patient_4", true},
		{"switch without id", "switch patient please", "patient_4", []string{"patient_4"}, nil, ActionActivateNew, "", true},
		{"switch without id, others known", "switch patient please", "patient_4", roster, nil, ActionActivateNew, "", false},
		{"ok active", "ok", "patient_4", roster, nil, ActionUnchanged, "patient_4", true},
		{"ok none", "ok", "", roster, nil, ActionNone, "", true},

		// Normalised variants.
		{"patient space", "go to patient 6", "patient_4", roster, nil, ActionActivateNew, "patient_6", true},
		{"capitalised", "Patient_15 now", "patient_4", roster, nil, ActionSwitchExisting, "patient_15", true},
		{"pt hash", "pt#15", "patient_4", roster, nil, ActionSwitchExisting, "patient_15", true},
		{"patient id", "open patient id patient_6", "", nil, nil, ActionActivateNew, "patient_6", true},
		{"active named", "back to patient_4", "patient_4", roster, nil, ActionUnchanged, "patient_4", true},
		{"two ids", "compare patient_4 with patient_15", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"two ids none active", "patient 4 or patient 5?", "", nil, nil, ActionNone, "", false},

		// A custom pattern.
		{"mrn", "review MRN1234567", "", nil, mrnPattern, ActionActivateNew, "MRN1234567", true},
		{"mrn spaced", "switch to mrn 7654321", "MRN1234567", []string{"MRN1234567", "MRN7654321"}, mrnPattern, ActionSwitchExisting, "MRN7654321", true},
		{"mrn short id alone", "MRN7654321", "MRN1234567", []string{"MRN1234567"}, mrnPattern, ActionActivateNew, "MRN7654321", true},
		{"mrn invalid", "review patient_4", "", nil, mrnPattern, ActionActivateNew, "", true},
		{"mrn word invalid", "switch to mrn 12", "MRN1234567", nil, mrnPattern, ActionActivateNew, "", true},

		// Clear, exact and by intent.
		{"clear", "  CLEAR ", "patient_4", roster, nil, ActionClear, "", true},
		{"clear patient", "clear patient", "", nil, nil, ActionClear, "", true},
		{"clear context", "Clear Context", "patient_4", roster, nil, ActionClear, "", true},
		{"reset context", "please reset the patient context", "patient_4", roster, nil, ActionClear, "", true},
		{"wipe patients", "wipe all patients", "patient_4", roster, nil, ActionClear, "", true},
		{"wipe contexts", "wipe contexts now.", "", nil, nil, ActionClear, "", true},
		{"airway", "clear the patient's airway", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"airway plain", "clear the airway with suction", "patient_4", roster, nil, ActionUnchanged, "patient_4", true},
		{"clear with id", "reset patient_4 context", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},

		// Roster questions change nothing.
		{"roster", "which patients have we discussed?", "patient_4", roster, nil, ActionUnchanged, "patient_4", true},
		{"who active", "who is active?", "", roster, nil, ActionNone, "", true},

		// Patient words without an ID.
		{"review none active", "review the patient", "", nil, nil, ActionActivateNew, "", true},
		{"review active", "check on the patient", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"next patient", "let's see the next patient", "patient_4", []string{"patient_4"}, nil, ActionActivateNew, "", true},
		{"first patient", "go back to the first patient", "patient_15", roster, nil, ActionActivateNew, "", false},
		{"invalid id", "review patient_4a", "", nil, nil, ActionActivateNew, "", true},
		// An activation with an ID ward cannot use goes to no one, whoever is active (issue 22).
		{"invalid id active", "review patient_1a", "patient_4", roster, nil, ActionActivateNew, "", true},
		{"invalid id spaced", "go to patient 1a", "patient_4", roster, nil, ActionActivateNew, "", true},
		{"invalid id glued alias", "switch to pt#x", "patient_4", roster, nil, ActionActivateNew, "", true},
		{"mrn invalid active", "review patient_4", "MRN1234567", []string{"MRN1234567"}, mrnPattern, ActionActivateNew, "", true},
		{"mrn invalid spaced", "see pt 4", "MRN1234567", []string{"MRN1234567"}, mrnPattern, ActionActivateNew, "", true},
		{"invalid id not asked for", "how is patient_1a doing", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"measurement is no id", "review the patient 2 hours after the dose", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"noun only", "the patient says her chest hurts", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},

		// Short messages and everything else.
		{"short with switch", "switch", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"long clinical", "give 0.5 mg epinephrine IM", "patient_4", roster, nil, ActionUnchanged, "patient_4", true},
		{"long none", "what should I do first on this shift?", "", nil, nil, ActionNone, "", true},
		{"previous one", "go back to the previous one", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"previous patient", "let me see the previous patient again", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"last of no patients", "how is the last patient doing", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"measurement", "pt 45 yo with chest pain", "", nil, nil, ActionNone, "", false},
		{"context cue", "switch her to a non-rebreather mask", "patient_4", roster, nil, ActionUnchanged, "patient_4", false},
		{"empty", "", "", nil, nil, ActionNone, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := AnalyzerInput{Text: tt.text, ActivePatient: tt.active, Roster: tt.roster, Pattern: tt.pattern}
			d, sure := RulesAnalyzer{}.Decide(in)
			if d.Action != tt.action || d.PatientID != tt.id || sure != tt.sure {
				t.Fatalf("Decide(%q) = %s %q sure=%v (%s); want %s %q sure=%v",
					tt.text, d.Action, d.PatientID, sure, d.Reasoning, tt.action, tt.id, tt.sure)
			}
			if d.Source != SourceRules || d.Reasoning == "" {
				t.Fatalf("source %q, reasoning %q", d.Source, d.Reasoning)
			}
		})
	}
}

// The decision says what was meant as an ID, so the trainee hears why no patient was found.
func TestInvalidIDIsNamed(t *testing.T) {
	for text, want := range map[string]string{
		"review patient_1a": "patient_1a", "go to Patient 1A please": "Patient 1A", "review patient_4.": "patient_4",
		"review the patient": "",
	} {
		in := AnalyzerInput{Text: text, ActivePatient: "MRN1234567", Roster: []string{"MRN1234567"}, Pattern: mrnPattern}
		if want == "patient_1a" || want == "Patient 1A" {
			in = AnalyzerInput{Text: text, ActivePatient: "patient_4", Roster: []string{"patient_4"}}
		}
		if d, _ := (RulesAnalyzer{}).Decide(in); d.Invalid != want {
			t.Errorf("Decide(%q).Invalid = %q, want %q (%s)", text, d.Invalid, want, d.Reasoning)
		}
	}
}

func TestIsClearPhrase(t *testing.T) {
	for text, want := range map[string]bool{
		"clear": true, " Clear Patient ": true, "CLEAR CONTEXT": true, "clear patient context": true,
		"clear context please": false, "clear the airway": false, "": false, "clear  context": false,
	} {
		if got := IsClearPhrase(text); got != want {
			t.Errorf("IsClearPhrase(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestIsRosterQuestion(t *testing.T) {
	for text, want := range map[string]bool{
		"which patients have we discussed?": true,
		"who is active?":                    true,
		"list patients":                     true,
		"show the roster":                   true,
		"which patient is this?":            true,
		"what is her blood pressure?":       false,
		"give 5 mg morphine":                false,
		"what is the target oxygen saturation for most acutely ill patients?": false,
	} {
		if got := IsRosterQuestion(text); got != want {
			t.Errorf("IsRosterQuestion(%q) = %v, want %v", text, got, want)
		}
	}
}

// With no model, the default analyzer is the rules, sure or not.
func TestNewAnalyzerWithoutModel(t *testing.T) {
	in := AnalyzerInput{Text: "check on the patient", ActivePatient: "patient_4", Roster: []string{"patient_4"}}
	d := NewAnalyzer(nil).Analyze(context.Background(), in)
	if d.Action != ActionUnchanged || d.Source != SourceRules {
		t.Fatalf("got %+v", d)
	}
}

func FuzzRulesAnalyzer(f *testing.F) {
	for _, s := range []string{
		"review patient_4", "yes proceed", "switch to patient_15", "clear patient context",
		"switch patient please", "pt#6", "mrn 1234567", "reset the context", "which patients?", "",
		"clear the patient's airway", "patient 6 and patient 7", "\x00patient_\xff9",
		"go back to Mr Chen", "bed 4", "the first one", "the other one", "the asthmatic patient", "Resus 3",
		"the last patient",
	} {
		f.Add(s, "patient_4")
		f.Add(s, "")
	}
	two := []Patient{{ID: "patient_4", Name: "Robert Chen", Sex: "M", Bed: "Resus 4", Condition: "acs, chest pain"},
		{ID: "MRN1234567", Name: "Maya Okafor", Sex: "F", Bed: "Resus 1", Condition: "asthma exacerbation"}}
	f.Fuzz(func(t *testing.T, text, active string) {
		// No named patients too: "the last patient" of none once indexed before the first.
		for _, c := range []struct {
			pattern  *regexp.Regexp
			patients []Patient
		}{{DefaultPatientIDPattern, two}, {mrnPattern, two}, {DefaultPatientIDPattern, nil}} {
			p := c.pattern
			in := AnalyzerInput{Text: text, ActivePatient: active, Roster: []string{"patient_4", "MRN1234567"}, Pattern: p,
				Patients: c.patients}
			d, _ := RulesAnalyzer{}.Decide(in)
			if !slices.Contains(Actions, d.Action) {
				t.Fatalf("unknown action %q", d.Action)
			}
			switch d.Action {
			case ActionActivateNew, ActionSwitchExisting:
				if d.PatientID != "" && !p.MatchString(d.PatientID) {
					t.Fatalf("%q gave invalid ID %q", text, d.PatientID)
				}
			case ActionUnchanged:
				if d.PatientID != active {
					t.Fatalf("UNCHANGED with %q while %q is active", d.PatientID, active)
				}
			case ActionNone, ActionClear:
				if d.PatientID != "" {
					t.Fatalf("%s with ID %q", d.Action, d.PatientID)
				}
			}
			if active == "" && d.Action == ActionUnchanged {
				t.Fatalf("UNCHANGED with no active patient")
			}
		}
	})
}

func BenchmarkRulesAnalyze(b *testing.B) {
	inputs := []AnalyzerInput{
		{Text: "review patient_4 labs", Roster: []string{"patient_4"}},
		{Text: "yes proceed", ActivePatient: "patient_4"},
		{Text: "applying oxygen via non-rebreather at 15L/min, checking vitals. What medications? Any allergies? When did this start?", ActivePatient: "patient_4"},
		{Text: "switch to pt #15", ActivePatient: "patient_4", Roster: []string{"patient_15", "patient_4"}},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		RulesAnalyzer{}.Analyze(ctx, inputs[i%len(inputs)])
	}
}
