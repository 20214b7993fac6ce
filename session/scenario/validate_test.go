package scenario

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// minimal is a valid scenario; each case below breaks one line of it.
const minimal = `id: tiny
title: Tiny
demographics: {name: A, age: 30, sex: F}
chief_complaint: unwell
news2: {scale: 1}
initial_state: well
states:
  well:
    vitals: {hr: 80, rr: 16, spo2: 97, sbp: 120, dbp: 70, temp_c: 37, gcs: 15}
  ill:
    vitals: {hr: 120}
transitions:
  - from: well
    to: ill
    when:
      - time_in_state: 5m
critical_actions:
  - id: look
    description: look
    match: {kind: check_vitals}
    within: 60
learning_objectives: [learn]
`

func TestMinimalScenarioIsValid(t *testing.T) {
	if errs := Validate([]byte(minimal)); len(errs) > 0 {
		t.Fatal(errs)
	}
}

func TestValidateReportsLineNumbers(t *testing.T) {
	cases := []struct {
		name, old, new string
		line           int
		want           string
	}{
		{"unknown top-level field", "title: Tiny", "title: Tiny\ntitel: oops", 3, `unknown field "titel" in the document`},
		{"unknown nested field", "    vitals: {hr: 120}", "    vitals: {hr: 120}\n    colour: red", 12, `unknown field "colour" in states.ill`},
		{"missing required field", "chief_complaint: unwell\n", "", 1, `missing required field "chief_complaint"`},
		{"missing demographics field", "{name: A, age: 30, sex: F}", "{name: A, sex: F}", 3, `missing required field "age" in demographics`},
		{"bad scale", "news2: {scale: 1}", "news2: {scale: 3}", 5, "news2 scale must be 1 or 2"},
		{"scale 2 without hypercapnic target", "news2: {scale: 1}", "news2: {scale: 2}", 5, "scale 2 is only for hypercapnic"},
		{"unknown initial state", "initial_state: well", "initial_state: poorly", 6, `initial_state "poorly" is not one of the states`},
		{"unknown transition target", "    to: ill", "    to: dead", 14, `unknown state "dead" in to`},
		{"unknown transition source", "  - from: well", "  - from: [well, gone]", 13, `unknown state "gone" in from`},
		{"unknown vital", "    vitals: {hr: 120}", "    vitals: {hr: 120, bp: 3}", 11, `unknown vital "bp"`},
		{"vital out of range", "    vitals: {hr: 120}", "    vitals: {hr: 999}", 11, "hr 999 is outside"},
		{"missing required vital", "sbp: 120, ", "", 9, "the initial state must set sbp"},
		{"two kinds in one condition", "      - time_in_state: 5m", "      - {time_in_state: 5m, vital: hr, above: 100}", 16, "exactly one of time_in_state"},
		{"bad duration", "      - time_in_state: 5m", "      - time_in_state: soon", 16, `"soon" is not seconds`},
		{"unknown action kind", "{kind: check_vitals}", "{kind: dance}", 20, `unknown action kind "dance"`},
		{"alias instead of canonical drug", "{kind: check_vitals}", "{kind: medication, drug: adrenaline}", 20, `write the drug as "epinephrine"`},
		{"unknown drug class", "{kind: check_vitals}", "{kind: medication, class: magic}", 20, `unknown drug class "magic"`},
		{"within and before both missing", "    within: 60\n", "", 18, "exactly one of within or before"},
		{"wrong type", "age: 30", "age: thirty", 3, "cannot unmarshal"},
		{"yaml syntax", "  well:", "  well: : :", 8, "mapping values are not allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantValidateError(t, c.old, c.new, c.line, c.want) })
	}
}

func TestValidateAllergyNeedsMatchingDrugClass(t *testing.T) {
	doc := strings.Replace(minimal, "initial_state: well", `allergies:
  - {agent: amoxicillin, reaction: rash, severity: mild}
  - {agent: morphine, drug_class: nsaid, reaction: apnoea, severity: severe}
  - {agent: cats, reaction: sneezing, severity: sometimes}
initial_state: well`, 1)
	got := ""
	for _, err := range Validate([]byte(doc)) {
		got += err.Error() + "\n"
	}
	for _, want := range []string{
		`line 7: allergy to the drug "amoxicillin" needs a drug_class`,
		`line 8: morphine is not in class "nsaid"`,
		`line 9: severity "sometimes" must be one of`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestValidateEmptyDocument(t *testing.T) {
	if errs := Validate(nil); len(errs) != 1 || !strings.Contains(errs[0].Error(), "empty") {
		t.Fatalf("got %v", errs)
	}
}

// FuzzValidate feeds arbitrary YAML to the scenario validator: it must never panic, and every
// error it reports carries a line within the input (or none, for document-level problems).
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		"", "id: x\n", "id: [\n", "states: {a: {vitals: {hr: 80}}}\n", "news2: {scale: 3}\n",
		"transitions:\n  - from: [a]\n    to: b\n    when: [{vital: spo2, below: 90, for: 60}]\n",
	} {
		f.Add([]byte(seed))
	}
	lib, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, sc := range lib.List() {
		data, err := builtinFS.ReadFile("builtin/" + sc.ID + ".yaml")
		if err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// YAML breaks lines at \n, \r\n and a lone \r.
		lines := bytes.Count(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n")) +
			bytes.Count(bytes.ReplaceAll(data, []byte("\r\n"), nil), []byte("\r")) + 1
		for _, err := range Validate(data) {
			var e Error
			if errors.As(err, &e) && e.Line > lines {
				t.Errorf("error on line %d of a %d-line input: %v", e.Line, lines, err)
			}
		}
	})
}

// wantValidateError checks that validating minimal with old replaced by new reports want at line.
func wantValidateError(t *testing.T, old, new string, line int, want string) {
	t.Helper()
	doc := strings.Replace(minimal, old, new, 1)
	if doc == minimal {
		t.Fatalf("case does not change the document")
	}
	errs := Validate([]byte(doc))
	for _, err := range errs {
		var e Error
		if errors.As(err, &e) && e.Line == line && strings.Contains(e.Msg, want) {
			return
		}
	}
	t.Fatalf("want line %d: %q, got %v", line, want, errs)
}
