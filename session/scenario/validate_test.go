package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
    points: 60
learning_objectives: [learn]
presentation: feeling unwell since this morning
scoring: {trajectory: 20, allergies_first: 10, reassessment: 10, hard_stop: 25, warning: 5}
findings: {airway: patent, breathing: normal, percussion: resonant, auscultation: clear, heart: normal, pulses: regular, cap_refill: 2 seconds, skin: warm, abdomen: soft, pupils: equal and reactive, gcs: E4 V5 M6, limbs: normal, focused: nothing more}
`

func TestValidateFindingsCoverEveryRegionInEveryState(t *testing.T) {
	noHeart := strings.Replace(minimal, " heart: normal,", "", 1)
	ill := strings.Replace(noHeart, "    vitals: {hr: 120}", "    vitals: {hr: 120}\n    findings: {heart: a loud murmur, elbow: sore}", 1)
	got := fmt.Sprint(Validate([]byte(ill)))
	for _, want := range []string{`state "well" finds nothing on examining heart`, `unknown examination region "elbow"`} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %s: want %q", got, want)
		}
	}
	if strings.Contains(got, `state "ill" finds nothing`) {
		t.Errorf("errors %s: the ill state's own heart finding should resolve it", got)
	}
	s, errs := Parse([]byte(strings.Replace(minimal, "    vitals: {hr: 120}", "    vitals: {hr: 120}\n    findings: {heart: a loud murmur}", 1)))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := s.State("ill").Finding("heart"); got != "a loud murmur" {
		t.Errorf("ill heart = %q, want the state's override", got)
	}
	if got := s.State("well").Finding("heart"); got != "normal" {
		t.Errorf("well heart = %q, want the baseline", got)
	}
	if got := s.State("ill").Finding("pupils"); got != "equal and reactive" {
		t.Errorf("pupils = %q, want the baseline's", got)
	}
}

// A case whose pupils nobody wrote is refused, not answered "normal" by default: in a head injury
// that default would be a dangerous lie. A state's own pupils, or the initial state's, count.
func TestValidatePupilsMustBeWritten(t *testing.T) {
	noPupils := strings.Replace(minimal, " pupils: equal and reactive,", "", 1)
	got := fmt.Sprint(Validate([]byte(noPupils)))
	for _, want := range []string{`state "well" finds nothing on examining pupils`, `state "ill" finds nothing on examining pupils`} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %s: want %q", got, want)
		}
	}
	initialWrites := strings.Replace(noPupils, "  well:\n", "  well:\n    pupils: pinpoint\n", 1)
	if errs := Validate([]byte(initialWrites)); len(errs) > 0 {
		t.Errorf("the initial state's pupils, which every state inherits: %v", errs)
	}
}

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
	for _, doc := range []string{"", "# only a comment\n", "---", "---\n", "--- # a comment\n"} {
		errs := Validate([]byte(doc))
		if len(errs) != 1 || errs[0] != (Error{Msg: "empty document"}) {
			t.Errorf("%q: got %v, want one document-level \"empty document\"", doc, errs)
		}
	}
}

// controlCases each put a character a terminal acts on into one text of the minimal scenario.
var controlCases = []struct {
	name, old, new string
	line           int
	char           string
}{
	{"OSC 52 (set the clipboard) in the title", "title: Tiny", `title: "\e]52;c;aGVsbG8=\a Tiny"`, 2, "U+001B"},
	{"CSI 2J (clear the screen) in the name", "name: A,", `name: "\e[2JA",`, 3, "U+001B"},
	{"OSC 8 (a hyperlink) in the complaint", "chief_complaint: unwell", `chief_complaint: "\e]8;;http://x\e\\unwell\e]8;;\e\\"`, 4, "U+001B"},
	{"C1 CSI in a state's name", "  ill:", `  "\u009B2Jill":`, 10, "U+009B"},
	{"NEL in a learning objective", "[learn]", `["le\Narn"]`, 23, "U+0085"},
	{"DEL in a description", "description: look", `description: "lo\x7Fok"`, 19, "U+007F"},
	{"a carriage return in a description", "description: look", `description: "look\roverwritten"`, 19, "U+000D"},
	{"a bell written as it is, in a block text", "learning_objectives: [learn]", "learning_objectives:\n  - |\n    learn\n    to ring \a", 26, "U+0007"},
}

func TestValidateRefusesControlCharacters(t *testing.T) {
	for _, c := range controlCases {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(minimal, c.old, c.new, 1)
			if doc == minimal {
				t.Fatal("case does not change the document")
			}
			want := Error{Line: c.line, Msg: "text holds the control character " + c.char + ", which a terminal would act on instead of printing"}
			if errs := Validate([]byte(doc)); !slices.Contains(errs, error(want)) {
				t.Fatalf("want %v, got %v", want, errs)
			}
		})
	}
}

// TestValidateNamesTheLineOfBadBytes: yaml.v3 refuses these without a line, or counts lines
// differently from an editor.
func TestValidateNamesTheLineOfBadBytes(t *testing.T) {
	tests := []struct {
		name, doc string
		want      Error
	}{
		{"invalid UTF-8", "id: x\ntitle: a\xffb\n", Error{2, "the file is not valid UTF-8 here (byte 0xff); save it as UTF-8"}},
		{"UTF-16", "\xfe\xff\x00i\x00d", Error{1, "the file is not valid UTF-8 here (byte 0xfe); save it as UTF-8"}},
		{"a line separator", "id: x\r\ntitle: a\u2028b\n", Error{2, "text holds U+2028, which YAML reads as a line break: use a newline"}},
		{"a raw escape after lone carriage returns", "id: x\rtitle: y\r\x1b[2J\n", Error{3, "text holds the control character U+001B, which a terminal would act on instead of printing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := Validate([]byte(tt.doc)); len(errs) != 1 || errs[0] != tt.want {
				t.Fatalf("got %v, want only %v", errs, tt.want)
			}
		})
	}
}

func TestValidateAcceptsTabsAndNewlines(t *testing.T) {
	doc := strings.Replace(minimal, "learning_objectives: [learn]", "learning_objectives:\n  - |\n    learn\tthis\n    and that\n  - \"tab\\tand\\nnewline\"", 1)
	if errs := Validate([]byte(doc)); len(errs) > 0 {
		t.Fatal(errs)
	}
}

// TestLoadRefusesControlCharactersAsValidateDoes: the library refuses the file that
// `ward scenarios validate` refuses, with the same file:line message.
func TestLoadRefusesControlCharactersAsValidateDoes(t *testing.T) {
	dir := t.TempDir()
	c := controlCases[0]
	doc := strings.Replace(strings.Replace(minimal, c.old, c.new, 1), "id: tiny", "id: tiny-escape", 1)
	if err := os.WriteFile(filepath.Join(dir, "escape.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	want := dir + "/escape.yaml:2: text holds the control character U+001B, which a terminal would act on instead of printing"
	if err == nil || err.Error() != want {
		t.Fatalf("Load: got %v, want %q", err, want)
	}
}

func TestParseShiftRefusesControlCharacters(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	_, errs := lib.ParseShift([]byte("id: night\ntitle: \"\\e]52;c;aGk=\\a\"\npatients:\n  - {id: patient_1, scenario: hypoglycaemia}\n"))
	want := Error{Line: 2, Msg: "text holds the control character U+001B, which a terminal would act on instead of printing"}
	if !slices.Contains(errs, error(want)) {
		t.Fatalf("want %v, got %v", want, errs)
	}
}

// FuzzValidate feeds arbitrary YAML to the scenario validator: it must never panic, and every
// error it reports carries a line within the input (or none, for document-level problems).
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		"", "---", "\xfe\xff (000000", "id: x\n", "id: [\n", "states: {a: {vitals: {hr: 80}}}\n", "news2: {scale: 3}\n",
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
	wantErrorIn(t, strings.Replace(minimal, old, new, 1), line, want)
}

// wantErrorIn checks that validating doc, a changed minimal, reports want at line.
func wantErrorIn(t *testing.T, doc string, line int, want string) {
	t.Helper()
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

// The presentation is the trainee's first sight of a case, and the score's weights are the
// educator's: both are checked where the author can fix them.
func TestValidatePresentationScoringRescueStatesAndBystander(t *testing.T) {
	cases := []struct {
		name, old, new string
		line           int
		want           string
	}{
		{"missing presentation", "presentation: feeling unwell since this morning\n", "", 1, `missing required field "presentation"`},
		{"presentation repeats the title", "presentation: feeling unwell since this morning", "presentation: a tiny case", 24, "repeats the title"},
		{"presentation names a state", "  ill:", "  very-ill:", 24, `names the state "very-ill"`},
		{"presentation too long", "presentation: feeling unwell since this morning", "presentation: " + strings.Repeat("unwell ", 20), 24, "keep it to 110"},
		{"weights do not add up", "trajectory: 20", "trajectory: 25", 25, "add up to 105, not 100"},
		{"missing points", "    points: 60\n", "", 18, `missing required field "points"`},
		{"negative penalty", "learning_objectives: [learn]", "critical_errors:\n  - {id: oops, description: oops, match: {kind: splint}, penalty: -5}\nlearning_objectives: [learn]", 24, "a penalty is a positive number"},
		{"rescue in an unknown state", "learning_objectives: [learn]", "rescue:\n  - {description: oxygen, match: {kind: oxygen}, states: [dying]}\nlearning_objectives: [learn]", 24, `unknown state "dying"`},
		{"state test unknown", "    vitals: {hr: 120}", "    vitals: {hr: 120}\n    results: {mri: normal}", 12, `unknown test "mri"`},
		{"match test unknown", "match: {kind: check_vitals}", "match: {kind: test, test: mri}", 20, `unknown test "mri"`},
		{"state gives a weight", "    vitals: {hr: 120}", "    vitals: {hr: 120}\n    results: {weight: 70 kg}", 12, `the weight is demographics.weight_kg`},
		{"state topic unknown", "    vitals: {hr: 120}", "    vitals: {hr: 120}\n    disclosures:\n      - {topic: mood, text: fine}", 13, `unknown topic "mood"`},
		{"bystander topic unknown", "learning_objectives: [learn]", "bystander:\n  name: Sam\n  relation: her son\n  disclosures:\n    - {topic: gossip, text: hi}\nlearning_objectives: [learn]", 27, `unknown topic "gossip"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(minimal, c.old, c.new, 1)
			if c.name == "presentation names a state" {
				doc = strings.Replace(doc, "to: ill", "to: very-ill", 1)
				doc = strings.Replace(doc, "presentation: feeling unwell since this morning", "presentation: very-ill since this morning", 1)
			}
			wantErrorIn(t, doc, c.line, c.want)
		})
	}
}

// A state's course leads to another state over a positive time; left out, it follows the first
// transition out on time alone.
func TestValidateCourses(t *testing.T) {
	bad := strings.Replace(minimal, "    vitals: {hr: 120}", "    vitals: {hr: 120}\n    course: {to: nowhere, over: 0}", 1)
	got := fmt.Sprint(Validate([]byte(bad)))
	for _, want := range []string{"a course leads to another of the states", "a course takes a positive time"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %s: want %q", got, want)
		}
	}
	s, errs := Parse([]byte(minimal))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	well, ill := s.State("well"), s.State("ill")
	if well.CourseTarget(HR, 150) != 100 || well.CourseTarget(HR, 600) != 120 {
		t.Errorf("well drifts toward ill: HR %g half way, %g after; want ill's 120 reached at 5 minutes",
			well.CourseTarget(HR, 150), well.CourseTarget(HR, 600))
	}
	if ill.CourseTarget(HR, 3600) != ill.Target(HR) {
		t.Error("ill has nowhere to go, yet drifts")
	}
}

// Scale 2 needs the evidence of hypercapnia named, each a test or a topic; access is iv or io.
func TestValidateScale2EvidenceAndAccess(t *testing.T) {
	doc := strings.Replace(minimal, "news2: {scale: 1}", "news2: {scale: 2, hypercapnic_target: true}\naccess: vein", 1)
	got := fmt.Sprint(Validate([]byte(doc)))
	for _, want := range []string{"scale 2 needs hypercapnia_from", `access "vein" must be iv or io`} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %s: want %q", got, want)
		}
	}
	doc = strings.Replace(minimal, "news2: {scale: 1}", "news2: {scale: 2, hypercapnic_target: true, hypercapnia_from: [blood_gas, card]}", 1)
	if got := fmt.Sprint(Validate([]byte(doc))); !strings.Contains(got, `"card" is neither a test nor a topic`) {
		t.Errorf("errors %s: want the unknown evidence named", got)
	}
}

// A prehospital case has a scene, its kit, drugs from its kit only, and a conveyance for its
// disposition; a hospital case has none of them.
func TestValidateSetting(t *testing.T) {
	withDisposition := minimal + "disposition: {accepted: [ward], reason: admit}\n"
	prehospital := strings.Replace(withDisposition, "presentation:", "setting: prehospital\npresentation:", 1)
	got := fmt.Sprint(Validate([]byte(prehospital)))
	for _, want := range []string{"a prehospital case needs its scene", "a prehospital case needs its kit",
		`a prehospital case conveys to major-trauma-centre, emergency-department, obstetric-unit, ecls-centre (or leaves the patient at home), not "ward"`} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %s: want %q", got, want)
		}
	}
	good := strings.Replace(prehospital, "setting: prehospital\n", "setting: prehospital\nscene: a kitchen floor\nkit: [glucose]\n", 1)
	good = strings.Replace(good, "accepted: [ward]", "accepted: [emergency-department]", 1)
	if errs := Validate([]byte(good)); len(errs) > 0 {
		t.Errorf("a prehospital case with its scene, kit and conveyance: %v", errs)
	}
	s, _ := Parse([]byte(good))
	if s == nil || s.Where() != Prehospital {
		t.Fatalf("setting: %+v", s)
	}
	hospital := strings.Replace(withDisposition, "accepted: [ward]", "accepted: [major-trauma-centre]", 1)
	if got := fmt.Sprint(Validate([]byte(hospital))); !strings.Contains(got, "a conveyance (major-trauma-centre, emergency-department, obstetric-unit, ecls-centre) is a prehospital case's disposition") {
		t.Errorf("a hospital case conveying: %s", got)
	}
	if s, _ := Parse([]byte(minimal)); s.Where() != Hospital {
		t.Errorf("a case that says nothing is %q, want hospital", s.Where())
	}
}

// A prehospital case's critical actions name only drugs the crew carries.
func TestValidateKitHoldsTheCaseDrugs(t *testing.T) {
	pre := strings.Replace(minimal, "presentation:", "setting: prehospital\nscene: a roadside\nkit: [glucose]\npresentation:", 1)
	pre = strings.Replace(pre, "match: {kind: check_vitals}", "match: {kind: medication, drug: red cells}", 1)
	if got := fmt.Sprint(Validate([]byte(pre))); !strings.Contains(got, "red cells is not in the crew's kit") {
		t.Errorf("errors %s: want red cells refused", got)
	}
}

// Variants an author cannot mean are reported in one run, each at its line.
func TestValidateVariants(t *testing.T) {
	data, err := builtinFS.ReadFile("builtin/copd-exacerbation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.NewReplacer(
		"age: [64, 80]", "age: [80, 64]",
		"{name: Derek Ellis, sex: M}", "{name: Derek Ellis, sex: male}",
		"jitter: {sbp: 8, dbp: 5, temp_c: 0.2}", "jitter: {sbp: 8, dbp: 0, lactate: 1}",
	).Replace(string(data))
	var msgs []string
	for _, e := range Validate([]byte(bad)) {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"youngest first", `sex "male"`, `unknown vital "lactate"`, "jitter must be above 0"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among:\n%s", want, all)
		}
	}
}

// A case whose limbs finding names a side declares its one-sided limb, with its source and what
// the other limbs find, and its findings name that side; the limb answers only for its own side.
func TestValidateOneSidedLimb(t *testing.T) {
	sided := strings.Replace(minimal, "limbs: normal,", "limbs: left calf swollen and tender,", 1)
	if got := fmt.Sprint(Validate([]byte(sided))); !strings.Contains(got, "the limbs finding names a side: declare the one-sided limb") {
		t.Errorf("errors %s: want the undeclared one-sided limb named", got)
	}
	wrong := sided + "limb: {side: right, limbs: [leg, tail], sound: the left calf normal}\n"
	got := fmt.Sprint(Validate([]byte(wrong)))
	for _, want := range []string{`limb "tail" must be arm or leg`, "say what makes the limb one-sided",
		"name no side or limb in it", "names a side but not the one-sided limb's (right)"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %s: want %q", got, want)
		}
	}
	right := sided + "limb: {side: left, limbs: [leg], source: a DVT (NICE NG158), sound: 'normal: soft, not swollen'}\n"
	s, errs := Parse([]byte(right))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		side, limb string
		is         bool
	}{{"left", "leg", true}, {"left", "", true}, {"", "arm", true}, {"right", "leg", false}, {"left", "arm", false}} {
		if got := s.Limb.Is(c.side, c.limb); got != c.is {
			t.Errorf("Is(%q, %q) = %v, want %v", c.side, c.limb, got, c.is)
		}
	}
}

// A case's team roles are checked: a name a member can be given, once; what the role does and
// its source; kinds that exist, each held by one role.
func TestValidateTeamRoles(t *testing.T) {
	doc := strings.Replace(minimal, "initial_state: well", `team_roles:
  - {name: timekeeper, does: calls the cycles, source: RCUK PLS 2021}
  - {name: Scrub Nurse, does: hands the kit, source: RCOG}
  - {name: timekeeper, does: again, source: RCUK}
  - {name: midwife, does: rubs the fundus, holds: [haemorrhage_control, dance], source: RCOG}
  - {name: second, does: also rubs it, holds: [haemorrhage_control], source: RCOG}
  - {name: nothing}
initial_state: well`, 1)
	got := ""
	for _, err := range Validate([]byte(doc)) {
		got += err.Error() + "\n"
	}
	for _, want := range []string{
		`line 8: a team role's name "Scrub Nurse" must be one lowercase word`,
		`line 9: team role "timekeeper" is named twice`,
		`line 10: unknown action kind "dance"`,
		`line 11: haemorrhage_control is held by team role midwife already`,
		`line 12: missing required field "does" in team_roles[5]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 6 { // and the last's missing source
		t.Errorf("%d errors, want 6:\n%s", n, got)
	}
}
