package action

import (
	"reflect"
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

// med is a medication order with its dose as written; "" is no dose.
func med(drug, dose, route string) Action {
	a := Action{Kind: sc.KindMedication, Drug: drug, Route: route}
	a.Dose, _ = sc.ParseDose(dose)
	if a.Dose.Unit == sc.Milligrams && !a.Dose.PerKg {
		a.DoseMg = a.Dose.Amount
	}
	a.VolumeML = a.Dose.VolumeML
	return a
}

func overridden(a Action) Action {
	a.Override = true
	return a
}

func ask(topic string) Action { return Action{Kind: sc.KindAsk, Topic: topic} }

func kind(k sc.ActionKind) Action { return Action{Kind: k} }

var parseCases = []struct {
	text string
	want []Action
}{
	{"I'm applying oxygen via non-rebreather at 15L/min, checking vitals, and asking: What medications do you take? Any allergies? When did this start?",
		[]Action{{Kind: sc.KindOxygen, Device: "nrb", FlowLPM: 15}, kind(sc.KindCheckVitals), ask("medications"), ask("allergies"), ask("onset")}},
	{"applying oxygen 15 L NRB, checking vitals — any allergies?",
		[]Action{{Kind: sc.KindOxygen, Device: "nrb", FlowLPM: 15}, kind(sc.KindCheckVitals), ask("allergies")}},
	{"give 0.5 mg epinephrine IM", []Action{med("epinephrine", "0.5 mg", "IM")}},
	{"Epi 0.5mg IM", []Action{med("epinephrine", "0.5 mg", "IM")}},
	{"adrenaline 500 micrograms intramuscularly", []Action{med("epinephrine", "0.5 mg", "IM")}},
	{"give aspirin 300 mg", []Action{med("aspirin", "300 mg", "")}},
	{"aspirin 300mg PO and GTN 400 mcg SL", []Action{med("aspirin", "300 mg", "PO"), med("nitroglycerin", "400 mcg", "SL")}},
	{"give aspirin and GTN", []Action{med("aspirin", "", ""), med("nitroglycerin", "", "")}},
	{"salbutamol 5mg neb", []Action{med("salbutamol", "5 mg", "NEB")}},
	{"nebulised albuterol 2.5 mg", []Action{med("salbutamol", "2.5 mg", "NEB")}},
	{"naloxone 400 mcg IV", []Action{med("naloxone", "400 mcg", "IV")}},
	{"Narcan 2 mg intranasal", []Action{med("naloxone", "2 mg", "IN")}},
	{"fentanyl 50 mcg IN", []Action{med("fentanyl", "50 mcg", "IN")}},
	{"Im giving morphine 5 mg IV", []Action{med("morphine", "5 mg", "IV")}},
	{"ceftriaxone 2 g IV", []Action{med("ceftriaxone", "2 g", "IV")}},
	{"co-amoxiclav 1.2g IV", []Action{med("co-amoxiclav", "1.2 g", "IV")}},
	{"glucagon 1 mg IM", []Action{med("glucagon", "1 mg", "IM")}},
	{"give glucose 10% 150 mL IV", []Action{med("glucose", "150 mL of 10%", "IV")}},
	{"give 100 ml of 10% glucose IV", []Action{med("glucose", "100 mL of 10%", "IV")}},
	{"adrenaline 0.5 mL of 1:1000 IM", []Action{med("epinephrine", "0.5 mL of 1 in 1000", "IM")}},
	{"ketamine 0.3 mg/kg IV", []Action{med("ketamine", "0.3 mg/kg", "IV")}},
	{"fentanyl 1.5mcg/kg intranasal", []Action{med("fentanyl", "1.5 micrograms/kg", "IN")}},
	{"salbutamol 2 puffs via inhaler", []Action{med("salbutamol", "2 puffs", "INH")}},
	{"give 50 ml of 50% dextrose", []Action{med("glucose", "50 mL of 50%", "")}},
	{"give some adrenaline", []Action{med("epinephrine", "", "")}},
	{"adrenaline 0.5 mg IM with oxygen 15 L/min", []Action{med("epinephrine", "0.5 mg", "IM"), {Kind: sc.KindOxygen, FlowLPM: 15}}},
	{"give amoxicillin 500 mg PO, override", []Action{overridden(med("amoxicillin", "500 mg", "PO"))}},
	{"override: adrenaline 50 mg IV", []Action{overridden(med("epinephrine", "50 mg", "IV"))}},
	{"do not override, give adrenaline 0.5 mg IM", []Action{med("epinephrine", "0.5 mg", "IM")}},
	{"should I override?", nil},
	{"don't give morphine, give fentanyl 100 mcg", []Action{med("fentanyl", "100 mcg", "")}},
	{"give fentanyl not morphine", []Action{med("fentanyl", "", "")}},
	{"fentanyl not morphine, 100 mcg IN", nil},
	{"1 L normal saline", []Action{{Kind: sc.KindFluids, VolumeML: 1000}}},
	{"500ml bolus of Hartmann's", []Action{{Kind: sc.KindFluids, VolumeML: 500}}},
	{"give a 250 mL fluid bolus", []Action{{Kind: sc.KindFluids, VolumeML: 250}}},
	{"give 10 ml/kg sodium chloride 0.9% IV bolus", []Action{{Kind: sc.KindFluids, Dose: sc.Dose{Amount: 10, Unit: sc.Millilitres, PerKg: true}}}},
	{"a 20 mL per kg bolus of saline", []Action{{Kind: sc.KindFluids, Dose: sc.Dose{Amount: 20, Unit: sc.Millilitres, PerKg: true}}}},
	{"2 L nasal cannula", []Action{{Kind: sc.KindOxygen, Device: "nasal_cannula", FlowLPM: 2}}},
	{"15L NRB", []Action{{Kind: sc.KindOxygen, Device: "nrb", FlowLPM: 15}}},
	{"put her on a 28% venturi", []Action{{Kind: sc.KindOxygen, Device: "venturi", FiO2: 28}}},
	{"oxygen at 4 lpm", []Action{{Kind: sc.KindOxygen, FlowLPM: 4}}},
	{"stop the oxygen", []Action{kind(sc.KindStopOxygen)}},
	{"Give IV access", []Action{kind(sc.KindIVAccess)}},
	{"cannulate and take bloods", []Action{kind(sc.KindIVAccess), {Kind: sc.KindTest, Test: "bloods"}}},
	{"lactate and blood cultures please", []Action{{Kind: sc.KindTest, Test: "lactate"}, {Kind: sc.KindTest, Test: "blood_cultures"}}},
	{"what's her peak flow?", []Action{{Kind: sc.KindTest, Test: "peak_flow"}}},
	{"what's his weight?", []Action{{Kind: sc.KindTest, Test: "weight"}}},
	{"weigh the child", []Action{{Kind: sc.KindTest, Test: "weight"}}},
	{"send a VBG and a chest x-ray", []Action{{Kind: sc.KindTest, Test: "blood_gas"}, {Kind: sc.KindTest, Test: "chest_xray"}}},
	{"don't send a gas", nil},
	{"open his airway with a jaw thrust", []Action{{Kind: sc.KindAirway, Device: "jaw_thrust"}}},
	{"lie him flat with legs raised", []Action{{Kind: sc.KindPosition, Position: "legs_raised"}}},
	{"give high flow oxygen", []Action{{Kind: sc.KindOxygen, Device: "nrb"}}},
	{"start high flow nasal oxygen at 60 L", []Action{{Kind: sc.KindOxygen, Device: "high_flow", FlowLPM: 60}}},
	{"how is your breathing now?", []Action{ask("symptoms")}},
	{"when did you last take the sildenafil?", []Action{ask("medications")}},
	{"repeat the gas", []Action{{Kind: sc.KindTest, Test: "blood_gas"}}},
	{"give gas and air", []Action{med("nitrous oxide", "", "")}},
	{"start an IV", []Action{{Kind: sc.KindIVAccess, Route: "IV"}}},
	{"IO access now", []Action{{Kind: sc.KindIVAccess, Route: "IO"}}},
	{"BM please", []Action{kind(sc.KindGlucoseCheck)}},
	{"check her blood sugar", []Action{kind(sc.KindGlucoseCheck)}},
	{"check his glucose", []Action{kind(sc.KindGlucoseCheck)}},
	{"put him on the monitor", []Action{kind(sc.KindAttachMonitor)}},
	{"get a 12-lead ECG", []Action{kind(sc.KindECG)}},
	{"What's her BP?", []Action{kind(sc.KindCheckVitals)}},
	{"obs", []Action{kind(sc.KindCheckVitals)}},
	{"listen to her chest", []Action{exam("auscultation")}},
	{"any allergies", []Action{ask("allergies")}},
	{"Are you allergic to penicillin?", []Action{ask("allergies")}},
	{"do you smoke?", []Action{ask("social")}},
	{"when did you last eat?", []Action{ask("last_meal")}},
	{"when was his last meal?", []Action{ask("last_meal")}},
	{"give her a sandwich", []Action{kind(sc.KindFeed)}},
	{"start a meal", []Action{kind(sc.KindFeed)}},
	{"oral carbohydrate", []Action{kind(sc.KindFeed)}},
	{"oral glucose gel", []Action{{Kind: sc.KindMedication, Drug: "glucose", Route: "PO"}}},
	{"how long has this been going on?", []Action{ask("onset")}},
	{"hello, I'm one of the doctors. What brought you in today?", []Action{ask("onset")}},
	{"what seems to be the problem?", []Action{ask("onset")}},
	{"what's going on?", []Action{ask("onset")}},
	{"where does it hurt?", []Action{ask("pain")}},
	{"any medical history?", []Action{ask("history")}},
	{"recovery position", []Action{{Kind: sc.KindPosition, Position: "recovery"}}},
	{"sit him up", []Action{{Kind: sc.KindPosition, Position: "upright"}}},
	{"jaw thrust, OPA and BVM", []Action{{Kind: sc.KindAirway, Device: "jaw_thrust"}, {Kind: sc.KindAirway, Device: "opa"}, {Kind: sc.KindVentilate, Device: "bvm"}}},
	{"splint the leg", []Action{kind(sc.KindSplint)}},
	// Nothing to do: never guess.
	{"", nil},
	{"hello there", nil},
	{"the patient looks pale", nil},
	{"aspirin", nil},
	{"give", nil},
	{"can I give aspirin?", nil},
	{"should we give GTN", nil},
	{"don't give morphine", nil},
	{"drawing up adrenaline 0.5mg", nil},
	{"she takes aspirin 75 mg daily", nil},
	{"is he on oxygen at home", []Action{ask("history")}},
	{"monitor her closely", nil},
	{"forgive me", nil},
	{"olive oil", nil},
}

func TestParseActions(t *testing.T) {
	for _, c := range parseCases {
		if got := Parse(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q\n got %+v\nwant %+v", c.text, got, c.want)
		}
	}
}

// "give" never yields "iv", and a route is only read as a whole word.
func TestGiveDoesNotMatchIV(t *testing.T) {
	for _, text := range []string{"give aspirin 300 mg", "giving aspirin 300 mg", "forgive the aspirin 300 mg"} {
		for _, a := range Parse(text) {
			if a.Route == "IV" || a.Kind == sc.KindIVAccess {
				t.Errorf("%q read IV from a word containing it: %+v", text, a)
			}
		}
	}
}

func asciiCase(s string, upper bool) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case upper && 'a' <= c && c <= 'z':
			b[i] = c - 32
		case !upper && 'A' <= c && c <= 'Z':
			b[i] = c + 32
		}
	}
	return string(b)
}

// variants of a phrase that must parse the same: other letter cases, and
// punctuation or fillers around it.
func variants(p string) []string {
	alternating := []byte(p)
	for i := range alternating {
		if i%2 == 0 {
			alternating[i] = asciiCase(string(alternating[i]), true)[0]
		}
	}
	return []string{
		asciiCase(p, true), asciiCase(p, false), string(alternating),
		p + ".", p + "!!", p + "?", "  " + p + "  ", "... " + p + " ...", "(" + p + ")", "Okay, " + p, p + ";\n",
	}
}

func TestKnownPhrasesIgnoreCaseAndPunctuation(t *testing.T) {
	for _, c := range parseCases {
		want := Parse(c.text)
		for _, v := range variants(c.text) {
			if got := Parse(v); !reflect.DeepEqual(got, want) {
				t.Errorf("%q parsed differently from %q:\n got %+v\nwant %+v", v, c.text, got, want)
			}
		}
	}
}

func FuzzParseActions(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.text)
	}
	f.Add("0.5mg.5 1:1000 - -- 15l/min ,1,000 µg μg ..5 5. .")
	f.Fuzz(func(t *testing.T, s string) {
		got := Parse(s)
		for _, v := range []string{asciiCase(s, true), asciiCase(s, false), ". " + s + " . ", "  " + s + " !! "} {
			if again := Parse(v); !reflect.DeepEqual(got, again) {
				t.Fatalf("%q and %q parse differently:\n%+v\n%+v", s, v, got, again)
			}
		}
		for _, a := range got {
			if a.Kind == "" || a.DoseMg < 0 || a.VolumeML < 0 || a.FlowLPM < 0 {
				t.Fatalf("%q gave a malformed action %+v", s, a)
			}
		}
	})
}
