package action

import (
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// category is what a word or phrase means to the parser.
type category uint8

const (
	catWord      category = iota // anything unrecognised
	catNum                       // a number
	catConj                      // and, then… — splits clauses
	catDrug                      // val: canonical drug
	catRoute                     // val: route
	catUnit                      // val: mg, mcg, g, ml, l, lpm, pct
	catOxygen                    // oxygen, o2
	catO2Device                  // val: oxygen device
	catFluid                     // saline, fluids…
	catBolus                     // bolus, challenge
	catGive                      // administration verbs
	catNeg                       // negation: what follows is not done
	catPrep                      // drawing up, considering: not done yet
	catHistory                   // takes, usually: the patient's own medicines
	catCheck                     // check, measure, what's…
	catVitals                    // vitals, obs
	catVitalPart                 // bp, pulse, sats…
	catMonitor                   // val: "noun" needs context (monitor), "" does not
	catECG
	catTest // val: the investigation (sc.Tests)
	catGlucoseCheck
	catIVAccess
	catStop        // stop, remove… (oxygen)
	catTopic       // val: topic
	catWeakOn      // when did, how long: onset unless a clearer topic is there
	catAirway      // val: device or ""
	catVentil      // bag-valve-mask ventilation
	catPos         // val: position
	catSplint      // splinting
	catExamine     // val: how (exam.go): examine, listen, look, feel, percuss
	catBodyPart    // val: a region, or a part examined by region (exam.go)
	catExamFinding // val: a region named by a phrase that is an examination in itself
	catAsk         // interrogative opener
	catDirect      // directive opener: can you, please
	catFiller      // ok, right: skipped at the start of a clause
	catOverride    // override: give a stopped order anyway
	catGas         // val: what drives a nebuliser (air; oxygen is catOxygen)
	catTarget      // a prescribed SpO2 target: "target sats 88-92"
	catTeam        // val: a team to call (sc.Teams)
	catCall        // call, activate, refer: what summons a team
)

type entry struct {
	cat category
	val string
}

var (
	lexicon   = map[string]entry{}
	maxPhrase int // the longest phrase in the lexicon, in words, so lookup tries no longer runs
)

func add(cat category, val string, phrases ...string) {
	for _, p := range phrases {
		lexicon[p] = entry{cat, val}
		maxPhrase = max(maxPhrase, strings.Count(p, " ")+1)
	}
}

func init() {
	for _, d := range sc.Drugs() {
		for _, n := range append([]string{d.Name}, d.Aliases...) {
			add(catDrug, d.Name, sc.NormalizeName(n))
		}
	}
	add(catConj, "", "and", "then", "also", "plus", "while", "whilst", "as well as")
	add(catRoute, "IM", "im", "intramuscular", "intramuscularly", "into the thigh", "in the thigh")
	add(catRoute, "IV", "iv", "intravenous", "intravenously", "iv push", "ivp")
	add(catRoute, "IO", "io", "intraosseous", "intraosseously")
	add(catRoute, "PO", "po", "oral", "orally", "by mouth", "per os")
	add(catRoute, "SL", "sl", "sublingual", "sublingually", "under the tongue", "spray")
	add(catRoute, "IN", "intranasal", "intranasally", "nasal", "nasally", "atomiser", "atomizer", "nasal spray")
	add(catRoute, "NEB", "neb", "nebs", "nebulised", "nebulized", "nebuliser", "nebulizer", "nebulise", "nebulize", "back to back nebs")
	add(catRoute, "SC", "sc", "subcut", "subcutaneous", "subcutaneously", "sq", "sub q")
	add(catRoute, "PR", "pr", "rectal", "rectally")
	add(catRoute, "BUCCAL", "buccal", "buccally", "inside the cheek")
	add(catRoute, "INH", "inh", "inhaled", "inhaler", "by inhaler", "via inhaler", "inhalation", "mdi",
		"puff", "puffs", "spacer")
	add(catOverride, "", "override", "overriding", "overridden", "i override", "override the stop")
	add(catUnit, "mg", "mg", "mgs", "milligram", "milligrams")
	add(catUnit, "mcg", "mcg", "mcgs", "microgram", "micrograms", "µg", "μg", "ug")
	add(catUnit, "g", "g", "gm", "gram", "grams", "gramme", "grammes")
	add(catUnit, "ml", "ml", "mls", "millilitre", "millilitres", "milliliter", "milliliters", "cc")
	add(catUnit, "l", "l", "litre", "litres", "liter", "liters", "ltr")
	add(catUnit, "lpm", "lpm", "l min", "litres per minute", "liters per minute", "l per min", "litres a minute", "l per minute")
	add(catUnit, "pct", "%", "percent", "per cent")
	add(catOxygen, "", "oxygen", "o2", "supplemental oxygen", "oxygen driven", "o2 driven")
	add(catGas, "air", "air", "medical air", "air driven", "driven by air", "with air")
	// "High-flow oxygen" in an emergency means 15 L/min through a reservoir mask (Resuscitation
	// Council UK); high-flow nasal oxygen is named as such.
	add(catO2Device, "nrb", "nrb", "nrm", "non rebreather", "nonrebreather", "non rebreathe", "non rebreather mask",
		"non rebreathing mask", "reservoir mask", "trauma mask", "high flow")
	add(catO2Device, "nasal_cannula", "nasal cannula", "nasal cannulae", "nasal cannulas", "nasal prongs", "nasal specs", "nc")
	add(catO2Device, "venturi", "venturi", "venturi mask", "venti mask")
	add(catO2Device, "simple_mask", "simple mask", "simple face mask", "face mask", "hudson mask", "hudson", "mask")
	add(catO2Device, "high_flow", "hfno", "hfnc", "optiflow", "high flow nasal", "high flow nasal oxygen",
		"high flow nasal cannula", "high flow nasal cannulae")
	add(catFluid, "", "fluid", "fluids", "saline", "normal saline", "ns", "hartmann", "hartmanns", "hartmann s",
		"ringers lactate", "ringer s lactate", "lactated ringers", "lactated ringer s", "crystalloid", "plasmalyte", "plasma lyte")
	add(catBolus, "", "bolus", "fluid challenge", "challenge")
	add(catGive, "", "give", "giving", "gave", "given", "administer", "administering", "administered", "push", "pushing",
		"inject", "injecting", "start", "starting", "commence", "commencing", "hang", "hanging", "run", "running",
		"apply", "applying", "applied", "put", "putting", "place", "placing", "use", "using", "load", "deliver",
		"delivering", "provide", "titrate", "repeat", "another dose", "second dose")
	add(catNeg, "", "no", "not", "dont", "don t", "do not", "never", "avoid", "without", "hold", "withhold",
		"withholding", "cancel", "instead of", "rather than", "shouldn t", "won t", "can t", "cannot")
	add(catPrep, "", "draw up", "drawing up", "drew up", "prepare", "preparing", "prep", "get ready", "getting ready",
		"consider", "considering", "thinking about", "think about")
	add(catHistory, "", "takes", "taken", "usually", "normally", "regularly", "at home", "prescribed")
	add(catCheck, "", "check", "checking", "take", "taking", "measure", "measuring", "get", "getting", "recheck",
		"rechecking", "repeat", "reassess", "reassessing", "obtain", "record")
	add(catVitals, "", "vitals", "vital signs", "vital sign", "obs", "observations", "set of obs", "set of observations",
		"full set", "full set of obs")
	add(catVitalPart, "", "bp", "blood pressure", "pulse", "heart rate", "hr", "sats", "saturations", "saturation",
		"oxygen saturation", "oxygen saturations", "spo2", "sao2", "o2 sats", "resp rate", "respiratory rate",
		"rr", "temperature", "temp", "etco2", "end tidal", "pulse ox")
	add(catMonitor, "noun", "monitor", "monitoring")
	add(catMonitor, "", "cardiac monitor", "continuous monitoring", "3 lead", "three lead", "defib pads", "pads",
		"capnography", "waveform capnography")
	add(catECG, "", "ecg", "ekg", "12 lead", "twelve lead", "12 lead ecg", "12 lead ekg", "rhythm strip",
		"rhythm", "heart rhythm", "cardiac rhythm")
	add(catGlucoseCheck, "", "bm", "bms", "blood glucose", "blood sugar", "blood sugars", "cbg", "bgl", "glucometer",
		"finger prick", "fingerprick", "capillary glucose", "capillary blood glucose", "sugar", "sugars",
		"sugar level", "glucose level", "glucose levels")
	add(catTest, "blood_gas", "blood gas", "blood gases", "abg", "vbg", "arterial blood gas", "venous blood gas",
		"arterial gas", "venous gas", "gases", "gas")
	add(catTest, "lactate", "lactate", "lactate level", "serum lactate")
	add(catTest, "blood_cultures", "blood cultures", "blood culture", "cultures")
	add(catTest, "bloods", "bloods", "routine bloods", "fbc", "full blood count", "u e", "u and e", "u and es",
		"urea and electrolytes", "crp", "renal function")
	add(catTest, "troponin", "troponin", "trop", "high sensitivity troponin")
	add(catTest, "urine_dip", "urine dip", "urine dipstick", "dipstick", "dip the urine", "urinalysis")
	add(catTest, "peak_flow", "peak flow", "pefr", "peak expiratory flow")
	add(catTest, "chest_xray", "chest x ray", "chest xray", "cxr", "chest film", "chest radiograph")
	add(catIVAccess, "IO", "io access", "io needle", "intraosseous access", "ez io", "ezio")
	add(catIVAccess, "", "iv access", "iv line", "intravenous access", "cannulate", "cannulating",
		"cannulation", "cannula", "venflon", "large bore", "wide bore", "access")
	add(catStop, "", "stop", "stopping", "remove", "removing", "take off", "taking off", "discontinue", "off")
	add(catTopic, "allergies", "allergy", "allergies", "allergic", "nkda", "nka", "reactions to", "reaction to")
	add(catTopic, "medications", "medication", "medications", "meds", "medicine", "medicines", "tablets", "pills",
		"prescriptions", "regular medication", "do you take", "take anything", "taking anything", "inhalers")
	add(catTarget, "", "target sats", "target saturation", "target saturations", "target spo2", "sats target",
		"saturation target", "target of", "target range", "target", "aim for sats", "aim for saturations", "aim for", "aiming for")
	add(catTeam, "pci", "primary pci", "ppci", "pci", "cath lab", "cath lab team", "catheter lab", "cardiac catheter lab",
		"heart attack centre", "interventional cardiology", "interventional cardiologist", "reperfusion")
	add(catTeam, "critical_care", "icu", "itu", "intensive care", "critical care", "outreach", "critical care outreach")
	add(catTeam, "senior", "registrar", "the reg", "consultant", "senior", "senior help", "medical emergency team",
		"met call", "anaesthetist")
	add(catCall, "", "call", "calling", "activate", "activating", "refer", "referring", "referral", "page", "bleep",
		"phone", "contact", "alert", "escalate", "escalating", "arrange", "book")
	add(catTopic, "history", "oxygen at home", "home oxygen", "oxygen alert card", "oxygen card", "alert card",
		"a card", "your card", "use oxygen", "oxygen target", "co2 retainer", "retain co2")
	add(catTopic, "history", "history", "medical history", "past medical history", "pmh", "medical problems",
		"health problems", "conditions", "illnesses", "had this before", "happened before", "operations", "surgery")
	add(catTopic, "onset", "onset", "what happened", "what were you doing", "how did this happen", "how did it happen",
		"since when", "came on", "come on", "brought you in", "brings you in", "brought you here", "brings you here",
		"brought you to hospital", "is the problem", "be the problem", "wrong with you", "going on")
	add(catWeakOn, "onset", "when did", "how long")
	add(catTopic, "pain", "pain", "painful", "hurt", "hurts", "hurting", "sore", "ache", "aching", "pain score",
		"out of ten", "out of 10", "tender")
	add(catTopic, "symptoms", "symptoms", "how are you feeling", "how do you feel", "how are you", "your breathing", "feeling", "short of breath",
		"breathless", "nausea", "nauseous", "dizzy", "feel sick")
	add(catTopic, "last_meal", "last meal", "last ate", "last eat", "last eaten", "eaten", "last oral intake",
		"last drink", "last food", "when did you eat")
	add(catTopic, "social", "smoke", "smoker", "smoking", "alcohol", "drink", "drinking", "recreational",
		"recreational drugs", "drugs", "live with", "occupation")
	add(catAirway, "opa", "opa", "oropharyngeal", "oropharyngeal airway", "guedel", "guedel airway", "oral airway")
	add(catAirway, "npa", "npa", "nasopharyngeal", "nasopharyngeal airway", "nasal airway")
	add(catAirway, "jaw_thrust", "jaw thrust")
	add(catAirway, "head_tilt", "head tilt", "chin lift", "head tilt chin lift")
	add(catAirway, "suction", "suction", "suctioning")
	add(catAirway, "", "open the airway", "open his airway", "open her airway", "open airway", "open their airway")
	add(catVentil, "bvm", "bvm", "bag valve mask", "bag mask", "bag valve", "bagging", "bag him", "bag her",
		"bag the patient", "ventilate", "ventilating", "ventilations", "ventilation", "assist ventilations",
		"assisted ventilation", "rescue breaths", "rescue breathing", "ambu bag", "ambu")
	add(catPos, "upright", "sit up", "sit her up", "sit him up", "sit upright", "sat up", "sitting up", "sit forward",
		"upright", "semi recumbent", "position of comfort", "high fowlers", "fowlers")
	add(catPos, "recovery", "recovery position", "lateral position", "on his side", "on her side", "left lateral")
	add(catPos, "supine", "lie flat", "lay flat", "lying flat", "lie him flat", "lie her flat", "lay him flat",
		"lay her flat", "supine")
	add(catPos, "legs_raised", "legs raised", "raise legs", "raise his legs", "raise her legs", "elevate legs",
		"legs up", "raise the legs")
	add(catSplint, "", "splint", "splinting", "splinted", "box splint", "vacuum splint", "traction splint",
		"immobilise", "immobilize", "immobilisation", "immobilization", "sling")
	add(catAsk, "", "any", "do", "does", "did", "have", "has", "had", "are", "is", "was", "were", "what", "whats",
		"what s", "when", "where", "why", "how", "who", "which", "should", "shall", "can i", "could i", "may i",
		"can", "could", "would it", "is there", "are there")
	add(catDirect, "", "can you", "could you", "would you", "will you", "please", "can we", "could we", "lets",
		"let s", "let us", "i need you to", "i want you to", "go ahead and", "go ahead")
	addCurriculum()
	addLibrary()
	add(catFiller, "", "ok", "okay", "right", "so", "alright", "now", "hi", "hello", "um", "er", "erm", "well",
		"great", "good", "thanks", "thank you", "sir", "madam", "mate")
	addArrestWords()
}

// lookup finds the longest phrase starting at words[0].
func lookup(words []string) (entry, int, bool) {
	for n := min(maxPhrase, len(words)); n > 0; n-- {
		if e, ok := lexicon[strings.Join(words[:n], " ")]; ok {
			return e, n, true
		}
	}
	return entry{}, 0, false
}
