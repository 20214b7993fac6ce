package authoring

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Every built-in scenario passes the check, read from the library as ward scenarios check reads
// it with no file named.
func TestBuiltinsPassTheCheck(t *testing.T) {
	lib, err := sc.Load()
	if err != nil {
		t.Fatal(err)
	}
	reports := CheckLibrary(lib)
	if len(reports) < 9 {
		t.Fatalf("%d built-in scenarios checked", len(reports))
	}
	for _, r := range reports {
		if len(r.Problems) > 0 {
			t.Errorf("%s:\n%s", r.File, problemsOf(r))
		}
		if len(r.Paths) != 3 || !strings.Contains(r.Text(), "01:00") {
			t.Errorf("%s: paths not played minute by minute:\n%s", r.File, r.Text())
		}
	}
}

// The good file passes; each broken file fails the check it is named for, saying why.
func TestBrokenFilesFailWithTheirReason(t *testing.T) {
	good, err := Check(filepath.Join("testdata", "good", "dehydration.yaml"))
	if err != nil || len(good.Problems) > 0 {
		t.Fatalf("the good file: %v\n%s", err, good.Text())
	}
	for file, want := range map[string]string{
		"parse":           "parse.yaml:13: parse: did not find expected",
		"no-review":       "review: no review beside the scenario",
		"review-mismatch": `review-mismatch.review.md:18: review: Treated well, 02:00 "500 mL Hartmann's bolus": the engine is in better with NEWS2 4 low (Scale 1); the review says dry`,
		"unreached":       "unreached: state collapsed: no transition that can fire reaches it from dry",
		"never-fires":     "never-fires: transition 2 (dry → worse): spo2 above 100, which is at or over the highest the body shows (100)",
		"unmet":           "unmet: critical action ecg (A 12-lead ECG) is not met on the treated-well path (within 10:00)",
		"unfound":         "unfound: the scenario lists medications, but no disclosure answers a question about medications",
		"no-findings":     `no-findings.yaml:30: no-findings: state "dry" finds nothing on examining focused`,
		"not-formulary":   `not-formulary.yaml:53: not-formulary: unknown drug "cyclizine"`,
		"team-roles":      "team-roles.yaml:53: team-roles: circulation is a role every team has",
		"concludes":       `concludes.yaml:36: concludes: states.worse.findings.focused names the diagnosis ("dehydration")`,
		"measures":        `measures.yaml:39: measures: states.better.findings.pulses states "90/min"`,
		"unsaid":          `unsaid.yaml:11: unsaid: disclosures[0].text names the diagnosis ("dehydration")`,
	} {
		t.Run(file, func(t *testing.T) {
			r, err := Check(filepath.Join("testdata", "broken", file+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Text(), want) {
				t.Errorf("want %q in:\n%s", want, problemsOf(r))
			}
		})
	}
	entries, _ := filepath.Glob(filepath.Join("testdata", "broken", "*.yaml"))
	if len(entries) != 13 {
		t.Errorf("%d broken files, want one per check (13)", len(entries))
	}
}

func problemsOf(r Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// Checking one built-in file: parse, three review paths played minute by minute, every check.
func BenchmarkCheck(b *testing.B) {
	file := filepath.Join("..", "scenario", "builtin", "paediatric-asthma.yaml")
	for b.Loop() {
		if _, err := Check(file); err != nil {
			b.Fatal(err)
		}
	}
}

// A transition that needs longer in a state than an earlier one takes to move the patient on,
// on time alone, never fires.
func TestShadowedTransitionNeverFires(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("testdata", "good", "dehydration")
	data, _ := os.ReadFile(good + ".yaml")
	review, _ := os.ReadFile(good + ".review.md")
	late := strings.Replace(string(data), "critical_actions:", `  - from: dry
    to: better
    when:
      - time_in_state: 20m
    reason: she drinks
critical_actions:`, 1)
	if err := os.WriteFile(filepath.Join(dir, "late.yaml"), []byte(late), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "late.review.md"), review, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Check(filepath.Join(dir, "late.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := "late.yaml:52: never-fires: transition 3 (dry → better): an earlier transition always takes the patient out of dry first, on time alone"
	if !strings.Contains(problemsOf(r), want) || len(r.Problems) != 1 {
		t.Errorf("want only %q, got:\n%s", want, problemsOf(r))
	}
}

// A file with five problems planted at once (a deleted baseline pupils finding, an unknown drug,
// a review row the engine does not play, a state nothing reaches, a medication nobody can ask
// about) reports all five in one run, each at its line: one problem never hides another.
func TestEveryProblemInOneRun(t *testing.T) {
	r, err := Check(filepath.Join("testdata", "five", "dehydration.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got := problemsOf(r)
	for _, want := range []string{
		`dehydration.yaml:34: no-findings: state "dry" finds nothing on examining pupils`,
		`dehydration.yaml:70: not-formulary: unknown drug "cyclizine"`,
		`dehydration.review.md:18: review: Treated well, 02:00 "500 mL Hartmann's bolus": the engine is in better`,
		`dehydration.yaml:42: unreached: state collapsed`,
		`dehydration.yaml:13: unfound: the scenario lists medications`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
}

// The review must hold for every patient a case's variants may draw: a jitter wide enough to
// change the NEWS2 the review expects is reported, naming the patient played.
func TestCheckPlaysTheReviewForEveryVariant(t *testing.T) {
	lib, err := sc.Load()
	if err != nil {
		t.Fatal(err)
	}
	data, review, _ := lib.Source("pulmonary-embolism")
	wide := strings.Replace(string(data), "jitter: {dbp: 4, temp_c: 0.2}", "jitter: {dbp: 4, temp_c: 0.2, sbp: 6}", 1)
	if wide == string(data) {
		t.Fatal("the case's jitter line moved; the test cannot widen it")
	}
	if r := CheckSource("pulmonary-embolism.yaml", data, review); len(r.Problems) > 0 {
		t.Fatalf("the case as built in:\n%s", problemsOf(r))
	}
	r := CheckSource("pulmonary-embolism.yaml", []byte(wide), review)
	text := problemsOf(r)
	if !strings.Contains(text, "review: as ") || !strings.Contains(text, "sbp -6") {
		t.Errorf("a systolic jitter that moves the NEWS2 is not reported per variant:\n%s", text)
	}
}

// A role the case names must be its own: not one every team has, nor holding work a role of
// every team holds. A role of its own passes.
func TestTeamRolesAreTheCasesOwn(t *testing.T) {
	good := filepath.Join("testdata", "good", "dehydration")
	data, _ := os.ReadFile(good + ".yaml")
	review, _ := os.ReadFile(good + ".review.md")
	roles := strings.Replace(string(data), "critical_actions:", `team_roles:
  - {name: timekeeper, does: calls the cycles, source: RCUK PLS 2021}
  - {name: leader, does: leads again, source: RCUK}
  - {name: midwife, does: compresses the uterus, holds: [haemorrhage_control, cpr], source: RCOG}
critical_actions:`, 1)
	r := CheckSource("roles.yaml", []byte(roles), review)
	got := problemsOf(r)
	for _, want := range []string{
		"roles.yaml:54: team-roles: leader is a role every team has (leader, airway, circulation, drugs, recorder): name the case's own",
		"roles.yaml:55: team-roles: midwife holds cpr, which is the circulation's work in every team",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
	if len(r.Problems) != 2 {
		t.Errorf("%d problems, want 2:\n%s", len(r.Problems), got)
	}
}
