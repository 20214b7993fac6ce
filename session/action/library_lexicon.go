package action

import sc "github.com/ward-sim/ward/session/scenario"

// catOwnKind is an action named by its own words alone; its val is the action kind.
const catOwnKind category = 201

// addLibrary adds what the library's second step needs (issue 37): control of bleeding (<C>ABCDE,
// a postpartum haemorrhage), a pregnant woman's left tilt, the obstetric, surgical, paediatric
// and trauma teams and an ambulance's pre-alert, an infant's feeding asked about, and the
// investigations its cases order; and long-acting carbohydrate after a hypo is treated.
func addLibrary() {
	add(catOwnKind, string(sc.KindHaemorrhageControl), "tourniquet", "apply a tourniquet", "cat tourniquet",
		"pelvic binder", "pelvic splint", "sam pelvic sling", "direct pressure", "pressure on the wound",
		"wound packing", "pack the wound", "haemostatic dressing", "hemostatic dressing",
		"fundal massage", "massage the fundus", "rub the fundus", "rub up the fundus", "rub up a contraction",
		"uterine massage", "bimanual compression", "bimanual uterine compression")
	add(catPos, "left_tilt", "left lateral tilt", "left tilt", "tilt her to the left", "tilt her left",
		"wedge under her right hip", "manual uterine displacement", "displace the uterus", "left uterine displacement")
	add(catTeam, "obstetrics", "obstetrician", "obstetric registrar", "obstetric team", "obstetrics",
		"labour ward", "gynae", "gynaecology", "gynaecologist", "gynae registrar", "on call gynae")
	add(catTeam, "surgery", "surgeon", "surgeons", "surgical team", "surgical registrar", "general surgeon",
		"general surgery", "vascular surgeon", "vascular surgeons", "vascular team", "cardiothoracic surgeon",
		"cardiothoracic", "burns unit", "burns centre", "burns team", "plastics")
	add(catTeam, "paediatrics", "paediatrician", "paediatric registrar", "paediatric team", "paediatrics",
		"picu", "paediatric intensive care", "retrieval team")
	add(catTeam, "trauma", "trauma team", "trauma call", "major trauma", "trauma team leader", "code red")
	add(catTeam, "prealert", "pre alert", "prealert", "pre alert the hospital", "pre alert the emergency department",
		"pre alert the major trauma centre", "pre alert the obstetric unit", "atmist", "asmethod", "standby call")
	add(catTest, "pregnancy_test", "pregnancy test", "urine pregnancy test", "hcg", "beta hcg", "serum hcg", "upt")
	add(catTest, "fast_scan", "fast scan", "efast", "e fast", "bedside ultrasound", "focused ultrasound",
		"pocus", "ultrasound")
	add(catTest, "ct_angiogram", "ct angiogram", "ct angiography", "ct aortogram", "ct aorta", "ct angio")
	add(catTest, "osmolality", "osmolality", "serum osmolality", "osmolarity", "sodium level", "serum sodium")
	add(catTopic, "last_meal", "feeding", "feeds", "her feeds", "his feeds", "bottles", "last feed")
	add(catTest, "cortisol", "cortisol", "random cortisol", "serum cortisol")
	add(catOwnKind, string(sc.KindFeed), "sandwich", "a sandwich", "toast", "biscuits", "a meal", "start a meal",
		"something to eat", "food", "let him eat", "let her eat", "oral carbohydrate", "long acting carbohydrate",
		"starchy carbohydrate", "starchy snack", "complex carbohydrate", "carbohydrate snack")
}
