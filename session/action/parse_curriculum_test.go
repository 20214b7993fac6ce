package action

import (
	"reflect"
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

func test(id string) Action { return Action{Kind: sc.KindTest, Test: id} }

// The words the adult curriculum's cases need (issue 26): their investigations, the
// peri-arrest treatments of a tachycardia or bradycardia, and their drugs by the names a
// trainee uses.
var curriculumCases = []struct {
	text string
	want []Action
}{
	{"check ketones and a blood gas", []Action{test("ketones"), test("blood_gas")}},
	{"send a crossmatch and clotting", []Action{test("crossmatch"), test("coagulation")}},
	{"group and save please", []Action{test("crossmatch")}},
	{"what's the INR?", []Action{test("coagulation")}},
	{"urgent CT head", []Action{test("ct_head")}},
	{"book a CTPA", []Action{test("ctpa")}},
	{"paracetamol and salicylate levels", []Action{test("paracetamol_level")}},
	{"lumbar puncture", []Action{test("lumbar_puncture")}},
	{"get a 12 lead ECG", []Action{kind(sc.KindECG)}},
	{"try vagal manoeuvres", []Action{kind(sc.KindVagal)}},
	{"modified Valsalva", []Action{kind(sc.KindVagal)}},
	{"synchronised cardioversion", []Action{kind(sc.KindCardioversion)}},
	{"synchronized DC shock under sedation", []Action{kind(sc.KindCardioversion)}},
	{"start transcutaneous pacing", []Action{kind(sc.KindPacing)}},
	{"don't cardiovert him", nil},
	{"should we pace her?", nil},
	{"adenosine 6 mg IV rapid bolus", []Action{med("adenosine", "6 mg", "IV")}},
	{"atropine 500 micrograms IV", []Action{med("atropine", "500 micrograms", "IV")}},
	{"calcium gluconate 10% 30 mL IV", []Action{med("calcium gluconate", "30 mL of 10%", "IV")}},
	{"alteplase 72 mg IV", []Action{med("alteplase", "72 mg", "IV")}},
	{"acetylcysteine 9 g IV", []Action{med("acetylcysteine", "9 g", "IV")}},
	{"levetiracetam 4.5 g IV", []Action{med("levetiracetam", "4.5 g", "IV")}},
	{"vitamin K 10 mg IV and beriplex 2000 units IV", []Action{med("phytomenadione", "10 mg", "IV"),
		med("prothrombin complex concentrate", "2000 units", "IV")}},
	{"transfuse 2 units of O negative", []Action{med("red cells", "2 units", "")}},
	{"give sodium bicarbonate 8.4% 50 mL IV", []Action{med("sodium bicarbonate", "50 mL of 8.4%", "IV")}},
	{"start a fixed rate insulin infusion at 0.1 units/kg/hr IV", []Action{med("insulin", "0.1 units/kg/h", "IV")}},
	{"give 1 litre of 0.9% sodium chloride", []Action{{Kind: sc.KindFluids, VolumeML: 1000}}},
	{"start FRIII at 0.1 units/kg/hr IV", []Action{med("insulin", "0.1 units/kg/h", "IV")}},
	{"give 2 units of blood", []Action{med("red cells", "2 units", "")}},
	{"what's the potassium?", []Action{test("blood_gas")}},
	{"ask her to blow into a 10 ml syringe", []Action{kind(sc.KindVagal)}},
	{"she takes warfarin", nil},
}

func TestParseCurriculumActions(t *testing.T) {
	for _, c := range curriculumCases {
		if got := Parse(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q\n got %+v\nwant %+v", c.text, got, c.want)
		}
	}
}
