package action

import sc "github.com/ward-sim/ward/session/scenario"

// The bedside examination: which regions (sc.Regions) a line asks to examine. A region is
// named by a phrase that is an examination in itself ("heart sounds", "cap refill", "pupils"),
// or by a part of the body with a verb that examines it ("listen to her chest", "examine the
// leg", "check the pulses and sensation in the right foot"). A verb carries across the clauses
// of a sentence, as "give" does.

// Examination verbs (catExamine values): how a body part is examined decides what is found in
// the chest, where looking, tapping and listening each find something else.
const (
	examAny    = ""
	examListen = "listen"
	examLook   = "look"
	examFeel   = "feel"
	examTap    = "percuss"
)

// Body parts (catBodyPart values) that are not a region by themselves.
const (
	partChest = "chest" // looked at, tapped, listened to or all three
	partNeuro = "neuro" // conscious level and pupils
	partWhole = "whole" // a full A-to-E examination
	partArm   = "arm"   // a limb, examined on the side the line names
	partLeg   = "leg"
)

func init() {
	add(catExamine, examAny, "examine", "examining", "examination", "exam", "assess", "assessing", "inspect",
		"inspecting")
	add(catExamine, examListen, "listen", "listen to", "listening to", "auscultate", "auscultating", "auscultation")
	add(catExamine, examLook, "look", "look at", "looking at", "have a look at", "take a look at", "look in", "look into", "observe")
	add(catExamine, examFeel, "feel", "feel for", "feeling", "palpate", "palpating", "palpation")
	add(catExamine, examTap, "percuss", "percussing", "percussion", "percussion note")

	add(catBodyPart, partChest, "chest", "lungs", "lung", "lung fields", "chest wall")
	add(catBodyPart, "heart", "heart", "praecordium", "precordium")
	add(catBodyPart, "airway", "airway", "mouth", "throat", "tongue", "oropharynx", "her airway", "his airway")
	add(catBodyPart, "abdomen", "abdomen", "abdo", "tummy", "belly", "stomach")
	add(catBodyPart, "skin", "skin", "rash", "hives", "peripheries", "colour", "color")
	add(catBodyPart, "limbs", "limb", "limbs", "sensation", "circulation", "movement", "the injury", "injury",
		"fracture", "deformity", "wound")
	add(catBodyPart, partLeg, "leg", "legs", "foot", "feet", "toes", "ankle", "shin", "calf", "knee", "hip", "thigh",
		"injured leg")
	add(catBodyPart, partArm, "arm", "arms", "hand", "hands", "wrist", "elbow", "forearm")
	add(catBodyPart, "pulses", "pulses", "peripheral pulses", "central pulse", "central pulses", "radial pulse",
		"carotid pulse", "femoral pulse")
	add(catBodyPart, partNeuro, "neuro", "neurology", "neurological", "nervous system", "conscious level",
		"level of consciousness")
	add(catExamFinding, partWhole, "a to e", "abcde", "a e", "top to toe", "head to toe", "full examination",
		"full exam", "primary survey", "secondary survey")

	// Phrases that are an examination by themselves.
	add(catExamFinding, "auscultation", "breath sounds", "air entry", "wheeze", "crackles", "chest sounds")
	add(catExamFinding, "heart", "heart sounds", "murmur", "murmurs", "added sounds")
	add(catExamFinding, "percussion", "percussion note", "percuss the chest", "percuss her chest", "percuss his chest")
	add(catExamFinding, "breathing", "work of breathing", "chest expansion", "accessory muscles", "chest movement",
		"respiratory effort", "breathing pattern")
	add(catExamFinding, "cap_refill", "cap refill", "capillary refill", "capillary refill time", "crt")
	add(catExamFinding, "pulses", "pulse volume", "peripheral pulse", "radial pulses")
	// A limb's own pulses are part of its neurovascular status, which the limbs finding gives.
	add(catExamFinding, "limbs", "distal pulses", "pedal pulses", "foot pulses", "foot pulse", "dorsalis pedis",
		"posterior tibial", "neurovascular", "neurovascular status", "nv status", "neurovascular check",
		"distal sensation", "cms", "circulation sensation and movement")
	add(catExamFinding, "gcs", "gcs", "glasgow coma scale", "glasgow coma score", "gcs breakdown", "eye opening",
		"motor response", "verbal response", "avpu", "acvpu")
	add(catExamFinding, "pupils", "pupils", "pupil", "pupillary response", "pupil size", "pupil reaction")
	add(catExamFinding, "airway", "airway patent", "is the airway patent", "airway patency", "stridor",
		"trachea", "tracheal position", "tracheal deviation", "neck veins")
}

// examinations are the regions this clause examines, each an action. verb is the examination
// verb in force: this clause's own, or the one carried from earlier in the sentence.
func (c clause) examinations(verb string, haveVerb bool) []placed {
	var out []placed
	add := func(pos int, regions ...string) {
		for _, r := range regions {
			a := Action{Kind: sc.KindExamine, Region: r}
			switch r {
			case "pupils":
				a.Kind = sc.KindPupils // the scenarios' older name for this one look
			case "limbs": // "examine the left leg": that side's limb
				a.Side, a.Limb = c.side(), c.limb()
			}
			out = append(out, placed{pos, a})
		}
	}
	for i, lx := range c {
		if c.negated(i) {
			continue
		}
		switch {
		case lx.cat == catExamFinding:
			add(lx.pos, partRegions(lx.val, verb)...)
		case lx.cat == catBodyPart && haveVerb:
			add(lx.pos, partRegions(lx.val, verb)...)
		}
	}
	if i := c.index(catExamine, 0); len(out) == 0 && i >= 0 && !c.negated(i) && c.lastExamineVerb() == i {
		// "examine him", "auscultate": a verb with nothing after it examines what it implies.
		add(c[i].pos, loneVerbRegions(c[i].val)...)
	}
	return out
}

// loneVerbRegions is what a verb examines when it names nothing: listening and tapping are of
// the chest; "examine" is of the system the case is about. Looking and feeling at nothing in
// particular ("look at the monitor") examine nothing.
func loneVerbRegions(verb string) []string {
	switch verb {
	case examListen:
		return []string{"auscultation"}
	case examTap:
		return []string{"percussion"}
	case examAny:
		return []string{"focused"}
	}
	return nil
}

// lastExamineVerb is the index of the clause's only examination verb, or -1 if there are
// several: a lone verb with no object examines what it implies.
func (c clause) lastExamineVerb() int {
	n, at := 0, -1
	for i, lx := range c {
		if lx.cat == catExamine {
			n, at = n+1, i
		}
	}
	if n != 1 {
		return -1
	}
	return at
}

// partRegions is what examining a body part with verb finds.
func partRegions(part, verb string) []string {
	switch part {
	case partChest:
		switch verb {
		case examListen:
			return []string{"auscultation"}
		case examLook:
			return []string{"breathing"}
		case examTap:
			return []string{"percussion"}
		case examFeel:
			return []string{"breathing"}
		case examAny:
			return []string{"breathing", "percussion", "auscultation"}
		}
		return []string{"focused"}
	case partNeuro:
		return []string{"gcs", "pupils", "limbs"}
	case partWhole:
		return sc.Regions
	case partArm, partLeg:
		return []string{"limbs"}
	case "heart":
		if verb == examListen || verb == examAny {
			return []string{"heart"}
		}
		return []string{"pulses"}
	}
	return []string{part}
}

// limb is the limb the clause names, arm or leg; "" when it names neither or both.
func (c clause) limb() string {
	named := ""
	for _, lx := range c {
		if lx.cat == catBodyPart && (lx.val == partArm || lx.val == partLeg) {
			if named != "" && named != lx.val {
				return ""
			}
			named = lx.val
		}
	}
	return named
}
