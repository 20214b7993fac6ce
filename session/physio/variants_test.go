package physio_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Two shifts with different seeds admit the same case as different patients who must be treated
// the same way: the treated-well review path meets the same critical actions for both.
func TestVariantsDrawDifferentPatientsWithTheSameLesson(t *testing.T) {
	lib, err := sc.Load()
	if err != nil {
		t.Fatal(err)
	}
	const id = "copd-exacerbation"
	base, _ := lib.Get(id)
	_, review, _ := lib.Source(id)
	paths, errs := physio.ParseReview(string(review))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var treated physio.ReviewPath
	for _, p := range paths {
		if p.Name == "Treated well" {
			treated = p
		}
	}
	admit := func(seed int64) *physio.Engine {
		e, err := physio.NewWard(seed, 0).Admit("patient_1", base)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	first, second := admit(1), admit(2)
	a, b := first.Scenario(), second.Scenario()
	if a.Demographics == b.Demographics && reflect.DeepEqual(a.States[a.InitialState].Vitals, b.States[b.InitialState].Vitals) {
		t.Fatalf("seeds 1 and 2 drew the same patient: %+v", a.Demographics)
	}
	if again := admit(1).Scenario(); again.Demographics != a.Demographics || !reflect.DeepEqual(again.Allergies, a.Allergies) {
		t.Errorf("seed 1 drew %+v, then %+v", a.Demographics, again.Demographics)
	}
	if base.Demographics.Name != "Frank Walsh" || len(base.Allergies) != 0 {
		t.Errorf("drawing changed the library's case: %+v, allergies %v", base.Demographics, base.Allergies)
	}
	var lessons [2][]string
	for i, e := range []*physio.Engine{first, second} {
		_, played := physio.PlayPath(e.Scenario(), treated, false)
		for _, o := range aar.Of(played).CriticalActions {
			if !o.Met {
				t.Errorf("%s: %s not met on the treated-well path", e.Scenario().Demographics.Name, o.ID)
			}
			lessons[i] = append(lessons[i], o.ID)
		}
	}
	if len(lessons[0]) == 0 || !reflect.DeepEqual(lessons[0], lessons[1]) {
		t.Errorf("critical actions differ between the draws: %v and %v", lessons[0], lessons[1])
	}
}

// The patient drawn at admission is the one a resumed shift has, and the one who answers.
func TestDrawnPatientSurvivesTheSnapshot(t *testing.T) {
	lib, err := sc.Load()
	if err != nil {
		t.Fatal(err)
	}
	base, _ := lib.Get("pulmonary-embolism")
	e, err := physio.NewWard(7, 0).Admit("patient_1", base)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(e.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap physio.Snapshot
	if err := json.Unmarshal(doc, &snap); err != nil {
		t.Fatal(err)
	}
	back, err := physio.NewWard(99, 0).Restore(snap, base)
	if err != nil {
		t.Fatal(err)
	}
	was, is := e.Scenario(), back.Scenario()
	if was.Demographics != is.Demographics || !reflect.DeepEqual(was.Allergies, is.Allergies) ||
		!reflect.DeepEqual(was.Medications, is.Medications) || !reflect.DeepEqual(was.States[was.InitialState].Vitals, is.States[is.InitialState].Vitals) {
		t.Errorf("restored as %+v %v, admitted as %+v %v", is.Demographics, is.Allergies, was.Demographics, was.Allergies)
	}
	if e.TrueNEWS2() != back.TrueNEWS2() {
		t.Errorf("NEWS2 %v restored, %v admitted", back.TrueNEWS2(), e.TrueNEWS2())
	}
	says := snap.Patient.Allergy.Says
	if told := back.Tells(sc.TopicAllergies); len(told) != 1 || told[0].Text != says {
		t.Errorf("asked about allergies the patient says %v; the draw says %q", told, says)
	}
}
