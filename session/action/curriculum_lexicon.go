package action

import sc "github.com/ward-sim/ward/session/scenario"

// catPeriArrest is a peri-arrest treatment of a tachycardia or bradycardia with a pulse; its val
// is the action kind. It sits above the general categories (lexicon.go).
const catPeriArrest category = 200

// addCurriculum adds what the adult curriculum's cases need (issue 26): their investigations,
// the peri-arrest treatments of a tachycardia or bradycardia, a transfusion as an order, the
// fluid and insulin infusion as UK guidelines name them, and a potassium or haemoglobin asked
// for, which a blood gas gives in minutes. A 12-lead ECG is the ECG action, whose result a
// state may add to ("ecg").
func addCurriculum() {
	add(catTest, "ketones", "ketones", "blood ketones", "ketone", "ketone level", "capillary ketones", "beta hydroxybutyrate")
	add(catTest, "coagulation", "clotting", "clotting screen", "coag", "coags", "coagulation", "coagulation screen",
		"inr", "aptt", "point of care inr")
	add(catTest, "crossmatch", "crossmatch", "cross match", "cross match blood", "group and save", "g and s",
		"group and crossmatch", "type and cross", "xmatch")
	add(catTest, "ct_head", "ct head", "ct brain", "ct scan of the head", "ct scan of his head", "ct scan of her head",
		"head ct", "ct of the head", "ct of her head", "ct of his head", "non contrast ct")
	add(catTest, "weight", "weight", "weigh", "weighs", "weigh him", "weigh her", "weigh the child", "how heavy",
		"his weight", "her weight", "weight in kg", "body weight")
	add(catTest, "ctpa", "ctpa", "ct pulmonary angiogram", "ct pulmonary angiography", "v q scan", "vq scan")
	add(catTest, "lumbar_puncture", "lumbar puncture", "lp", "spinal tap", "csf")
	add(catTest, "paracetamol_level", "paracetamol level", "paracetamol levels", "paracetamol concentration",
		"acetaminophen level", "paracetamol and salicylate levels", "paracetamol and salicylate level")
	add(catPeriArrest, string(sc.KindVagal), "vagal", "vagal manoeuvre", "vagal manoeuvres", "vagal maneuver",
		"vagal maneuvers", "valsalva", "valsalva manoeuvre", "modified valsalva", "modified valsalva manoeuvre",
		"blow into a syringe", "blow into the syringe", "carotid sinus massage")
	add(catPeriArrest, string(sc.KindCardioversion), "cardioversion", "cardiovert", "cardiovert him", "cardiovert her",
		"synchronised cardioversion", "synchronized cardioversion", "dc cardioversion", "synchronised dc shock",
		"synchronized dc shock", "synchronised shock", "synchronized shock", "sync shock")
	add(catPeriArrest, string(sc.KindPacing), "pacing", "pace", "pace him", "pace her", "external pacing",
		"transcutaneous pacing", "percussion pacing", "tcp")
	add(catGive, "", "transfuse", "transfusing", "transfusion")
	add(catDrug, "red cells", "units of blood", "unit of blood", "units of red cells", "unit of red cells")
	add(catDrug, "insulin", "friii", "fixed rate insulin infusion", "fixed rate iv insulin infusion", "vrii")
	add(catFluid, "", "sodium chloride", "nacl")
	add(catTest, "blood_gas", "potassium", "potassium level", "serum potassium", "haemoglobin", "hemoglobin", "hb")
	add(catPeriArrest, string(sc.KindVagal), "blow into", "bear down")
}
