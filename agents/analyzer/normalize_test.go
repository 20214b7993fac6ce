package analyzer

import (
	"regexp"
	"slices"
	"testing"
	"unicode/utf8"
)

var (
	mrnPattern  = regexp.MustCompile(`^MRN[0-9]{7}$`)
	bothPattern = regexp.MustCompile(`^(patient_[0-9]+|MRN[0-9]{7})$`)
	dashPattern = regexp.MustCompile(`^mrn-[A-Z0-9]{6}$`)
)

func TestNormalizeID(t *testing.T) {
	tests := []struct {
		text    string
		pattern *regexp.Regexp
		want    string // "" means not ok
	}{
		{"patient_6", DefaultPatientIDPattern, "patient_6"},
		{"review patient 6", DefaultPatientIDPattern, "patient_6"},
		{"Patient_6", DefaultPatientIDPattern, "patient_6"},
		{"PATIENT_6 please", DefaultPatientIDPattern, "patient_6"},
		{"patient id patient_6", DefaultPatientIDPattern, "patient_6"},
		{"patient id 6", DefaultPatientIDPattern, "patient_6"},
		{"pt 6", DefaultPatientIDPattern, "patient_6"},
		{"pt#6", DefaultPatientIDPattern, "patient_6"},
		{"pt #6", DefaultPatientIDPattern, "patient_6"},
		{"pt. 6", DefaultPatientIDPattern, "patient_6"},
		{"patient no. 6", DefaultPatientIDPattern, "patient_6"},
		{"patient-6", DefaultPatientIDPattern, "patient_6"},
		{"patient6", DefaultPatientIDPattern, "patient_6"},
		{"how is patient_4's pain?", DefaultPatientIDPattern, "patient_4"},
		{"(patient_4).", DefaultPatientIDPattern, "patient_4"},
		{"patient_4 then patient_4 again", DefaultPatientIDPattern, "patient_4"},
		{"patient 6 and patient 7", DefaultPatientIDPattern, ""},
		{"switch from patient_4 to pt 15", DefaultPatientIDPattern, ""},
		{"give 5 mg morphine", DefaultPatientIDPattern, ""},
		{"pt 45 yo male with chest pain", DefaultPatientIDPattern, ""},
		{"the patient is 6 feet tall", DefaultPatientIDPattern, ""},
		{"patient_", DefaultPatientIDPattern, ""},
		{"patient_4a", DefaultPatientIDPattern, ""},
		{"review patient_-1", DefaultPatientIDPattern, ""},                  // one separator only: never turned into patient_1
		{"admit patient_99999999999999999999", DefaultPatientIDPattern, ""}, // past MaxPatientIDLen
		{"admit patient_9999999999999999", DefaultPatientIDPattern, "patient_9999999999999999"},
		{"patient--1", DefaultPatientIDPattern, ""},
		{"pt#-1", DefaultPatientIDPattern, ""},
		{"ptosis", DefaultPatientIDPattern, ""},
		{"", DefaultPatientIDPattern, ""},
		{"patient_12345678901234567890123456789012345678901234567890123456789", DefaultPatientIDPattern, ""}, // longer than MaxPatientIDLen

		{"MRN1234567", mrnPattern, "MRN1234567"},
		{"mrn1234567", mrnPattern, "MRN1234567"},
		{"open mrn 1234567", mrnPattern, "MRN1234567"},
		{"MRN#1234567", mrnPattern, "MRN1234567"},
		{"patient 1234567", mrnPattern, "MRN1234567"},
		{"pt 1234567", mrnPattern, "MRN1234567"},
		{"1234567", mrnPattern, ""},
		{"MRN123456", mrnPattern, ""},
		{"patient_4", mrnPattern, ""},

		{"mrn 1234567", bothPattern, "MRN1234567"},
		{"patient 4", bothPattern, "patient_4"},
		{"pt 1234567", bothPattern, ""}, // patient_1234567 and MRN1234567 both fit

		{"mrn-ABC123", dashPattern, "mrn-ABC123"},
		{"MRN ABC123", dashPattern, "mrn-ABC123"},
		{"mrn abc123", dashPattern, "mrn-ABC123"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern.String()+"/"+tt.text, func(t *testing.T) {
			got, ok := NormalizeID(tt.text, tt.pattern)
			if ok != (tt.want != "") || got != tt.want {
				t.Fatalf("NormalizeID(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
			}
		})
	}
}

func TestLiteralPrefixes(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{`^patient_[0-9]+$`, []string{"patient_"}},
		{`^MRN[0-9]{7}$`, []string{"MRN"}},
		{`^(patient_[0-9]+|MRN[0-9]{7})$`, []string{"patient_", "MRN"}},
		{`^patient(_[0-9]+|-[A-Z]+)$`, []string{"patient_", "patient-"}},
		{`^[0-9]{6}$`, []string{""}},
	}
	for _, tt := range tests {
		got := literalPrefixes(regexp.MustCompile(tt.pattern))
		if !slices.Equal(got, tt.want) {
			t.Errorf("literalPrefixes(%s) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}

func TestExampleIDs(t *testing.T) {
	tests := []struct {
		pattern *regexp.Regexp
		want    []string
	}{
		{DefaultPatientIDPattern, []string{"patient_4", "patient_15"}},
		{mrnPattern, []string{"MRN4827163", "MRN1593726"}},
		{bothPattern, []string{"patient_4", "patient_15"}},
	}
	for _, tt := range tests {
		if got := ExampleIDs(tt.pattern); !slices.Equal(got, tt.want) {
			t.Errorf("ExampleIDs(%s) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
	for _, id := range ExampleIDs(dashPattern) {
		if !dashPattern.MatchString(id) {
			t.Errorf("example %q does not match %s", id, dashPattern)
		}
	}
}

func FuzzNormalizeID(f *testing.F) {
	for _, s := range []string{
		"patient_6", "pt#6", "Patient 6", "patient id patient_6", "mrn 1234567",
		"patient 6 and patient 7", "pt 45 yo", "patient_4's", "’patient_4’", "İpt 6", "pt\u00a06", "",
	} {
		f.Add(s)
	}
	patterns := []*regexp.Regexp{DefaultPatientIDPattern, mrnPattern, bothPattern, dashPattern}
	f.Fuzz(func(t *testing.T, text string) {
		for _, p := range patterns {
			id, ok := NormalizeID(text, p)
			if !ok {
				if id != "" {
					t.Fatalf("not ok but id %q", id)
				}
				continue
			}
			if !p.MatchString(id) || len(id) > MaxPatientIDLen || !utf8.ValidString(id) {
				t.Fatalf("NormalizeID(%q, %s) = %q: not a valid ID", text, p, id)
			}
		}
	})
}

func TestLookAlike(t *testing.T) {
	roster := []string{"patient_1", "patient_20", "MRN0012345"}
	for id, want := range map[string]string{
		"patient_01": "patient_1", "patient_001": "patient_1", "Patient_1": "patient_1", "PATIENT_020": "patient_20",
		"mrn12345": "MRN0012345", "MRN0012345": "", "patient_1": "", "patient_10": "", "patient_2": "", "patient_200": "",
	} {
		if got := LookAlike(id, roster); got != want {
			t.Errorf("LookAlike(%q) = %q, want %q", id, got, want)
		}
	}
}

// Looking alike is symmetric and never holds between an ID and itself.
func FuzzLookAlike(f *testing.F) {
	for _, pair := range [][2]string{{"patient_01", "patient_1"}, {"MRN0012345", "mrn12345"}, {"a0b00", "A0B0"}, {"", "0"}} {
		f.Add(pair[0], pair[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := LookAlike(a, []string{b}) != "", LookAlike(b, []string{a}) != ""
		if ab != ba {
			t.Fatalf("LookAlike(%q, %q) = %v but the other way %v", a, b, ab, ba)
		}
		if LookAlike(a, []string{a}) != "" {
			t.Fatalf("%q looks like itself", a)
		}
	})
}
