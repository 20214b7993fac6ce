package scenario

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func mustLoad(t testing.TB, dirs ...string) *Library {
	t.Helper()
	lib, err := Load(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func TestBuiltinScenarios(t *testing.T) {
	lib := mustLoad(t)
	want := []string{
		"acs-sildenafil", "anaphylaxis", "arrest-asystole-stop", "arrest-pea-tension", "arrest-vf-ward", "asthma-exacerbation", "copd-exacerbation",
		"fracture-morphine-allergy", "hypoglycaemia", "opioid-overdose", "sepsis-urosepsis",
		// the adult curriculum's cases (issue 26)
		"svt", "bradycardia", "hyperkalaemia-aki", "pulmonary-embolism", "stroke-thrombolysis", "pulmonary-oedema", "status-epilepticus", "bacterial-meningitis", "head-injury-anticoagulated", "upper-gi-bleed", "paracetamol-overdose", "diabetic-ketoacidosis",
		"paediatric-asthma",
		// the library's second step (issue 37)
		"postpartum-haemorrhage", "eclampsia", "ruptured-ectopic", "paediatric-arrest", "paediatric-sepsis", "bronchiolitis",
		"major-haemorrhage-prehospital", "hypothermia-prehospital", "hyperosmolar-hyperglycaemic-state", "adrenal-crisis",
		"tricyclic-overdose", "fast-af", "ruptured-aaa", "traumatic-tension-pneumothorax", "major-burns", "delirium-fall",
	}
	slices.Sort(want) // List is sorted by id
	var got []string
	for _, s := range lib.List() {
		got = append(got, s.ID)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("List() = %v, want %v", got, want)
	}
	for _, s := range lib.List() {
		if s.Source != "builtin/"+s.ID+".yaml" {
			t.Errorf("%s: source %q", s.ID, s.Source)
		}
	}
}

func TestAsthmaBaselineIsTheSeedPatient(t *testing.T) {
	s, ok := mustLoad(t).Get("asthma-exacerbation")
	if !ok {
		t.Fatal("asthma-exacerbation missing")
	}
	st := s.State(s.InitialState)
	want := map[Vital]float64{HR: 128, RR: 32, SpO2: 88, SBP: 138, DBP: 86, TempC: 37.0, GCS: 15}
	for v, val := range want {
		if got := st.Target(v); got != val {
			t.Errorf("%s = %g, want %g", v, got, val)
		}
	}
	if len(s.Allergies) != 0 {
		t.Errorf("asthma patient should have no known drug allergies, got %v", s.Allergies)
	}
}

func TestStatesInheritInitialVitalsAndCompileTransitions(t *testing.T) {
	s, _ := mustLoad(t).Get("copd-exacerbation")
	narcosis := s.State("co2-narcosis")
	if got := narcosis.Target(TempC); got != 37.6 {
		t.Errorf("co2-narcosis temp_c inherits %g, want 37.6", got)
	}
	if got := narcosis.Target(SpO2); got != 85 {
		t.Errorf("co2-narcosis spo2 inherits %g, want 85", got)
	}
	if a := narcosis.Alpha(EtCO2); a <= 0 || a >= narcosis.Alpha(HR) {
		t.Errorf("etco2 alpha %g should be positive and slower than hr's %g", a, narcosis.Alpha(HR))
	}
	if len(s.State("exacerbation").Outgoing()) != 3 {
		t.Errorf("exacerbation outgoing = %v", s.State("exacerbation").Outgoing())
	}
	if s.NumConditions() == 0 {
		t.Error("no conditions counted")
	}
}

func TestShifts(t *testing.T) {
	lib := mustLoad(t)
	want := map[string]int{"busy-ed": 4, "multi-casualty": 8, "quiet-night": 2, "medical-take": 6}
	for id, n := range want {
		sh, err := lib.Shift(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(sh.Patients) != n {
			t.Errorf("%s has %d patients, want %d", id, len(sh.Patients), n)
		}
		for i, p := range sh.Patients {
			if want := "patient_" + string(rune('1'+i)); p.ID != want {
				t.Errorf("%s patient %d id %q, want %q", id, i, p.ID, want)
			}
			if p.Bed == "" {
				t.Errorf("%s %s has no bed", id, p.ID)
			}
		}
	}
	if len(lib.Shifts()) != len(want) {
		t.Errorf("Shifts() = %d", len(lib.Shifts()))
	}
}

func TestShiftFromFile(t *testing.T) {
	lib := mustLoad(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(good, []byte("id: mine\ntitle: Mine\npatients:\n  - {id: patient_7, scenario: hypoglycaemia}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh, err := lib.Shift(good)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Patients[0].Bed != "Majors 6" {
		t.Errorf("bed should default to the scenario's, got %q", sh.Patients[0].Bed)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("id: bad\ntitle: Bad\npatients:\n  - {id: patient_1, scenario: hypoglycaemia}\n  - {id: patient_1, scenario: nope}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = lib.Shift(bad)
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:5: duplicate patient id") ||
		!strings.Contains(err.Error(), `bad.yaml:5: unknown scenario "nope"`) {
		t.Fatalf("want line-numbered errors, got %v", err)
	}
	if _, err := lib.Shift("no-such-shift"); err == nil {
		t.Fatal("unknown shift name should fail")
	}
}

func TestPickScenarioIsDeterministic(t *testing.T) {
	lib := mustLoad(t)
	seen := map[string]bool{}
	for _, id := range []string{"patient_1", "patient_2", "patient_3", "patient_4", "patient_5", "patient_6", "patient_7", "patient_8", "patient_9"} {
		a, errA := lib.PickScenario(id, nil)
		b, errB := mustLoad(t).PickScenario(id, nil)
		if errA != nil || errB != nil || a.ID != b.ID {
			t.Fatalf("%s: %s then %s", id, a.ID, b.ID)
		}
		seen[a.ID] = true
	}
	if len(seen) < 3 {
		t.Errorf("nine patients got only %d distinct scenarios", len(seen))
	}
}

func TestUserDirectoryOverridesAndReportsFileErrors(t *testing.T) {
	asthma, _ := builtinFS.ReadFile("builtin/asthma-exacerbation.yaml")
	dir := t.TempDir()
	edited := strings.Replace(string(asthma), "title: Acute severe asthma", "title: My asthma", 1)
	if err := os.WriteFile(filepath.Join(dir, "asthma.yaml"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := mustLoad(t, dir)
	if s, _ := lib.Get("asthma-exacerbation"); s.Title != "My asthma" {
		t.Errorf("user scenario should replace the built-in, title %q", s.Title)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("id: broken\ntitle: x\nbogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "broken.yaml:3: unknown field \"bogus\"") {
		t.Fatalf("want file:line error, got %v", err)
	}
}

// Built-in scenarios are parsed when first used, so a broken one would only show when a shift
// meets it: every built-in must parse, under the id its file is named by, and every built-in
// shift must name only scenarios the library has.
func TestBuiltinsParseUnderTheirFileNames(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.Check(); err != nil {
		t.Fatal(err)
	}
	if errs := lib.builtinShifts(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(lib.List()) != len(lib.ids) || len(lib.Shifts()) == 0 {
		t.Fatalf("%d scenarios listed of %d, %d shifts", len(lib.List()), len(lib.ids), len(lib.Shifts()))
	}
}

// A library is shared: the first uses may come from several goroutines at once.
func TestLibraryParsesOnceUnderConcurrentUse(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]*Scenario, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = lib.Get("anaphylaxis"); lib.Shifts() })
	}
	wg.Wait()
	for _, s := range got {
		if s == nil || s != got[0] {
			t.Fatalf("concurrent first uses gave %v", got)
		}
	}
}
