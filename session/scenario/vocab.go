package scenario

// Vital indexes the physiological values the engine tracks. The engine keeps
// them in fixed arrays, so the order here is part of the snapshot format.
type Vital uint8

const (
	HR Vital = iota
	RR
	SpO2
	SBP
	DBP
	TempC
	GCS
	EtCO2
	Glucose // mmol/L
	Wheeze  // 0 none … 3 severe
	Pain    // 0–10 numeric rating
	NumVitals
)

var vitalNames = [NumVitals]string{"hr", "rr", "spo2", "sbp", "dbp", "temp_c", "gcs", "etco2", "glucose", "wheeze", "pain"}

func (v Vital) String() string { return vitalNames[v] }

// ParseVital maps a YAML vital name ("spo2") to its index.
func ParseVital(name string) (Vital, bool) {
	for i, n := range vitalNames {
		if n == name {
			return Vital(i), true
		}
	}
	return 0, false
}

// requiredVitals must be set in a scenario's initial state; the others fall
// back to healthy defaults so every patient has every value.
var requiredVitals = []Vital{HR, RR, SpO2, SBP, DBP, TempC, GCS}

// DefaultTarget is the healthy adult value used when a scenario leaves a
// vital out of its initial state.
var DefaultTarget = [NumVitals]float64{
	HR: 80, RR: 16, SpO2: 97, SBP: 120, DBP: 75, TempC: 37.0, GCS: 15,
	EtCO2: 38, Glucose: 5.6, Wheeze: 0, Pain: 0,
}

// DefaultTau is the time constant (seconds) with which each vital approaches
// its target. Oxygenation moves in a minute or two, temperature over many.
var DefaultTau = [NumVitals]float64{
	HR: 90, RR: 90, SpO2: 60, SBP: 120, DBP: 120, TempC: 900, GCS: 90,
	EtCO2: 120, Glucose: 240, Wheeze: 120, Pain: 120,
}

// Range is the physiologically possible span of each vital; targets outside
// it are rejected and the engine clamps to it.
var Range = [NumVitals][2]float64{
	HR: {20, 250}, RR: {0, 70}, SpO2: {40, 100}, SBP: {30, 260}, DBP: {15, 160},
	TempC: {30, 43}, GCS: {3, 15}, EtCO2: {5, 120}, Glucose: {0.5, 40},
	Wheeze: {0, 3}, Pain: {0, 10},
}

// ActionKind names what a trainee did. The parser produces these and scenario
// matches refer to them.
type ActionKind string

const (
	KindCheckVitals   ActionKind = "check_vitals"
	KindAttachMonitor ActionKind = "attach_monitor"
	KindGlucoseCheck  ActionKind = "glucose_check"
	KindECG           ActionKind = "ecg"
	KindExamine       ActionKind = "examine"
	KindPupils        ActionKind = "pupils"
	KindTest          ActionKind = "test" // an investigation: a blood gas, a lactate, a chest X-ray
	KindOxygen        ActionKind = "oxygen"
	KindStopOxygen    ActionKind = "stop_oxygen"
	KindMedication    ActionKind = "medication"
	KindIVAccess      ActionKind = "iv_access"
	KindFluids        ActionKind = "fluids"
	KindAirway        ActionKind = "airway"
	KindVentilate     ActionKind = "ventilate"
	KindPosition      ActionKind = "position"
	KindSplint        ActionKind = "splint"
	KindAsk           ActionKind = "ask"
	KindTargetSats    ActionKind = "target_sats" // a prescribed SpO2 target range
	KindRefer         ActionKind = "refer"       // a call for a team (Teams): the cath lab for primary PCI

	// Peri-arrest treatments of a tachycardia or bradycardia with a pulse (RCUK ALS 2021).
	KindVagal         ActionKind = "vagal_manoeuvre" // modified Valsalva, carotid sinus massage
	KindCardioversion ActionKind = "cardioversion"   // a synchronised DC shock
	KindPacing        ActionKind = "pacing"          // transcutaneous (external) pacing

	// <C> of <C>ABCDE (ATLS, NICE NG39) and of a postpartum haemorrhage (RCOG Green-top 52):
	// a tourniquet, direct pressure or packing, a pelvic binder, the fundus rubbed up or the uterus
	// compressed.
	KindHaemorrhageControl ActionKind = "haemorrhage_control"

	// Long-acting carbohydrate by mouth once a hypoglycaemic patient can swallow: a sandwich, a
	// meal, toast or biscuits (JBDS hypoglycaemia 2023): without it the glucose falls again.
	KindFeed ActionKind = "feed"
)

// Teams a trainee can call: the cath lab for primary PCI, critical care, a senior doctor, the
// obstetric, surgical (general, vascular), paediatric and trauma teams, and a receiving
// hospital's pre-alert from an ambulance (JRCALC).
var Teams = []string{"pci", "critical_care", "senior", "obstetrics", "surgery", "paediatrics", "trauma", "prealert"}

// ActionKinds lists every kind, in a stable order.
var ActionKinds = []ActionKind{
	KindCheckVitals, KindAttachMonitor, KindGlucoseCheck, KindECG, KindExamine, KindPupils, KindTest, KindOxygen,
	KindStopOxygen, KindMedication, KindIVAccess, KindFluids, KindAirway, KindVentilate, KindPosition, KindSplint, KindAsk,
	KindTargetSats, KindRefer, KindVagal, KindCardioversion, KindPacing, KindHaemorrhageControl, KindFeed,
	// the cardiac arrest (arrest_kinds.go)
	KindArrestCall, KindCPR, KindStopCPR, KindPads, KindCharge, KindShock, KindRhythmCheck, KindPulseCheck,
	KindNameRhythm, KindCauses, KindTreatCause, KindStopResus, KindBPTarget, KindTempControl,
}

// Tests are the investigations a trainee can order, by the id a scenario's results use, with
// the name the chat gives each.
var Tests = map[string]string{
	"blood_gas":      "blood gas",
	"lactate":        "lactate",
	"blood_cultures": "blood cultures",
	"bloods":         "bloods",
	"troponin":       "troponin",
	"urine_dip":      "urine dipstick",
	"peak_flow":      "peak flow",
	"chest_xray":     "chest X-ray",
	// The cases of the adult curriculum (issue 26). A 12-lead ECG is ordered by the ECG action;
	// a state's "ecg" result is what it shows, read with the rhythm.
	"ecg":               "12-lead ECG",
	"ketones":           "blood ketones",
	"coagulation":       "clotting screen",
	"crossmatch":        "group and crossmatch",
	"ct_head":           "CT head",
	"ctpa":              "CT pulmonary angiogram",
	"lumbar_puncture":   "lumbar puncture",
	"paracetamol_level": "paracetamol level",
	// the library's second step (issue 37)
	"pregnancy_test": "pregnancy test",
	"fast_scan":      "FAST ultrasound",
	"ct_angiogram":   "CT angiogram",
	"osmolality":     "serum osmolality",
	"cortisol":       "cortisol",
	// The patient's weight, which every dose and volume per kg is worked out from: the engine
	// answers it from the case's demographics, not from a state's results.
	"weight": "weight",
}

// Topics a trainee can ask the patient about; disclosures are keyed by them.
var Topics = []string{"allergies", "medications", "history", "onset", "pain", "symptoms", "last_meal", "social"}

// Routes of administration, canonical spelling. INH is inhaled from a
// metered-dose inhaler or an analgesic inhaler (Penthrox, Entonox).
var Routes = []string{"IM", "IV", "IO", "PO", "SL", "IN", "NEB", "SC", "PR", "BUCCAL", "INH"}

// Devices: oxygen delivery, airway adjuncts and manoeuvres, ventilation.
var Devices = []string{
	"nrb", "nasal_cannula", "venturi", "simple_mask", "high_flow",
	"bvm", "opa", "npa", "jaw_thrust", "head_tilt", "suction",
	"sga", "ett", // a supraglottic airway (i-gel), a tracheal tube
}

// Positions a patient can be placed in.
// left_tilt is a pregnant woman tilted to her left (or her uterus displaced by hand), off her
// vena cava (RCOG Green-top 56, RCUK maternal resuscitation).
var Positions = []string{"upright", "recovery", "supine", "legs_raised", "left_tilt"}

// Safety levels, allergy severities and disclosure modes.
const (
	HardStop = "hard_stop"
	Warn     = "warn"

	RevealAlways    = "always"
	RevealWhenAsked = "when_asked"
)

// Severities of an allergy, most to least serious. An intolerance is not a
// true allergy: it warns but never blocks.
var Severities = []string{"severe", "moderate", "mild", "intolerance"}
