package action

import sc "github.com/ward-sim/ward/session/scenario"

// The words of a cardiac arrest. Their categories sit above the general ones (lexicon.go).
const (
	catArrestCall category = 100 + iota
	catCPR
	catPause // pause, hold: compressions stop
	catPads
	catCharge
	catShock
	catRhythmCheck
	catPulseCheck
	catRhythm // val: the rhythm named (sc.Rhythms, or sc.SaidVF)
	catPoor   // compressions too slow, shallow…
	catCauses
	catTreatCause // val: the cause (arrest.yaml)
	catStopResus
	catBPTarget
	catTempControl
)

// addArrestWords adds the arrest's phrases; lexicon.go's init calls it last, so "pads" and the
// rhythm words mean here what they mean in an arrest.
func addArrestWords() {
	add(catArrestCall, "", "arrest call", "crash call", "call the arrest team", "arrest team", "crash team",
		"call 2222", "2222", "call for help", "get help", "shout for help", "resus team", "cardiac arrest call",
		"put out an arrest call", "put out a crash call", "he s arrested", "she s arrested", "cardiac arrest",
		"he s in arrest", "she s in arrest", "they re in arrest", "in cardiac arrest")
	add(catCPR, "", "cpr", "chest compressions", "compressions", "compressing", "start cpr", "resume cpr",
		"resume compressions", "continue cpr", "continue compressions", "back on the chest", "hands on", "30 2",
		"30 to 2")
	add(catPause, "", "pause", "pausing", "hands off", "hold compressions", "hold cpr", "stop compressions",
		"stop cpr", "stopping cpr", "stopping compressions", "pausing compressions", "compressions stopped",
		"compressions paused", "compressions held", "cpr stopped", "cpr paused", "cpr held", "stand clear",
		"everyone clear", "all clear", "everybody clear")
	add(catPads, "", "pads", "defib pads", "defibrillator pads", "pads on", "put the pads on", "attach pads",
		"attach the pads", "defibrillator", "defib", "aed")
	add(catCharge, "", "charge", "charging", "charge the defib", "charge the defibrillator", "charge to")
	add(catShock, "", "shock", "shocking", "shock him", "shock her", "deliver a shock", "deliver the shock",
		"deliver shock", "defibrillate", "defibrillating", "shock delivered")
	add(catRhythmCheck, "", "rhythm check", "check the rhythm", "check rhythm", "check his rhythm",
		"check her rhythm", "assess the rhythm", "assess rhythm", "look at the rhythm", "analyse the rhythm",
		"analyze the rhythm", "analyse rhythm")
	add(catPulseCheck, "", "pulse check", "check for a pulse", "feel for a pulse", "central pulse",
		"carotid pulse", "carotid", "femoral pulse", "check for output", "signs of life", "a pulse", "any pulse",
		"any output", "check a pulse", "check the pulse", "check pulse", "feel a pulse")
	add(catRhythm, sc.SaidVF, "vf", "v fib", "vfib", "ventricular fibrillation")
	add(catRhythm, string(sc.CoarseVF), "coarse vf", "coarse ventricular fibrillation")
	add(catRhythm, string(sc.FineVF), "fine vf", "fine ventricular fibrillation")
	add(catRhythm, string(sc.PulselessVT), "pulseless vt", "pulseless v tach", "pulseless ventricular tachycardia",
		"pvt", "pulseless vtach")
	add(catRhythm, string(sc.VT), "vt", "v tach", "vtach", "ventricular tachycardia")
	add(catRhythm, string(sc.PEA), "pea", "pulseless electrical activity", "electromechanical dissociation", "emd")
	add(catRhythm, string(sc.Asystole), "asystole", "asystolic", "flatline", "flat line", "flatlining")
	add(catRhythm, string(sc.SinusRhythm), "sinus rhythm", "normal sinus rhythm", "nsr")
	add(catRhythm, string(sc.SinusTachycardia), "sinus tachycardia", "sinus tachy", "sinus tach")
	add(catRhythm, string(sc.SinusBradycardia), "sinus bradycardia", "sinus brady")
	add(catRhythm, string(sc.AtrialFib), "atrial fibrillation", "af", "a fib", "afib", "fast af")
	add(catRhythm, string(sc.SVT), "svt", "supraventricular tachycardia")
	add(catRhythm, string(sc.CompleteHeartBlck), "complete heart block", "third degree heart block",
		"3rd degree heart block", "chb", "third degree block")
	add(catPoor, "", "shallow", "too shallow", "too slow", "too fast", "poor quality", "poor compressions",
		"weak compressions", "slow compressions", "tired")
	add(catCauses, "", "4 hs and 4 ts", "four hs and four ts", "hs and ts", "4hs and 4ts", "4 h s and 4 t s",
		"reversible causes", "reversible cause", "4 hs", "4 ts")
	add(catTreatCause, "tension_pneumothorax", "needle decompression", "needle decompress", "decompress",
		"decompression", "needle thoracocentesis", "needle thoracentesis", "finger thoracostomy", "thoracostomy",
		"decompress the chest", "chest decompression", "chest drain", "insert a chest drain", "intercostal drain",
		"chest tube", "tube thoracostomy")
	add(catTreatCause, "tamponade", "pericardiocentesis")
	add(catTreatCause, "thrombosis", "thrombolysis", "thrombolyse", "thrombolyze", "lyse", "thrombolytic")
	add(catTreatCause, "hypothermia", "rewarm", "rewarming", "active rewarming", "warm him up", "warm her up")
	add(catTreatCause, "hyperkalaemia", "give potassium", "replace potassium", "potassium replacement", "treat the hyperkalaemia", "treat the potassium",
		"treat hyperkalaemia", "treat hypokalaemia")
	add(catTreatCause, "toxins", "antidote", "lipid emulsion")
	add(catStopResus, "", "stop resuscitation", "stop the resuscitation", "stop resus", "stop the resus",
		"cease resuscitation", "end resuscitation", "call it", "time of death", "declare death",
		"pronounce death", "stop the arrest", "we ll stop", "we will stop")
	add(catBPTarget, "", "map above 65", "map over 65", "map of 65", "map target", "bp target",
		"blood pressure target", "target map", "systolic above 100", "systolic over 100", "target a systolic",
		"map 65")
	add(catTempControl, "", "temperature control", "targeted temperature", "targeted temperature management",
		"ttm", "prevent fever", "avoid fever", "avoid hyperthermia", "normothermia", "keep him normothermic",
		"keep her normothermic", "temperature management")
	add(catAirway, "sga", "i gel", "igel", "supraglottic", "supraglottic airway", "lma", "laryngeal mask",
		"laryngeal mask airway", "sga")
	add(catAirway, "ett", "intubate", "intubation", "intubating", "tracheal tube", "endotracheal tube",
		"et tube", "ett", "tube him", "tube her")
	add(catUnit, "j", "j", "joule", "joules")
}

var energyUnits = map[string]conversion{"j": {1, 1}}

// arrestActions are the arrest's own actions in a clause. A question asks, it does not do: "is
// it VF?" names nothing, "shall we shock?" shocks nobody; but asking for a pulse or the rhythm
// ("is there a pulse?") is checking it, as asking for a blood pressure is measuring it.
func (c clause) arrestActions(question bool) []placed {
	var out []placed
	for i, lx := range c {
		if question && lx.cat != catPulseCheck && lx.cat != catRhythmCheck {
			continue
		}
		if a, ok := c.arrestAction(i, lx); ok {
			out = append(out, placed{lx.pos, a})
		}
		if lx.cat == catPads && !c.negated(i) { // pads show the rhythm, as a monitor does
			out = append(out, placed{lx.pos, Action{Kind: sc.KindAttachMonitor}})
		}
	}
	return out
}

func (c clause) arrestAction(i int, lx lexeme) (Action, bool) {
	stop := c.has(catPause) || c.has(catStop)
	switch lx.cat {
	case catPause: // "don't stop compressions" keeps them going
		if c.negated(i) {
			return c.compressions(), true
		}
		return Action{Kind: sc.KindStopCPR}, true
	case catCPR:
		if stop || c.negated(i) {
			return Action{Kind: sc.KindStopCPR}, true
		}
		return c.compressions(), true
	case catCauses: // considering the causes is the action itself
		return Action{Kind: sc.KindCauses}, true
	}
	if c.negated(i) {
		return Action{}, false
	}
	energy, _ := c.amount(0, len(c), energyUnits)
	switch lx.cat {
	case catArrestCall:
		return Action{Kind: sc.KindArrestCall}, true
	case catPads:
		return Action{Kind: sc.KindPads}, true
	case catCharge:
		return Action{Kind: sc.KindCharge, EnergyJ: energy}, true
	case catShock:
		return Action{Kind: sc.KindShock, EnergyJ: energy}, true
	case catRhythmCheck:
		return Action{Kind: sc.KindRhythmCheck}, true
	case catPulseCheck:
		return Action{Kind: sc.KindPulseCheck}, true
	case catRhythm:
		return Action{Kind: sc.KindNameRhythm, Rhythm: lx.val}, true
	case catTreatCause:
		return Action{Kind: sc.KindTreatCause, Cause: lx.val, Side: c.side()}, true
	case catStopResus:
		return Action{Kind: sc.KindStopResus}, true
	case catBPTarget:
		return Action{Kind: sc.KindBPTarget}, true
	case catTempControl:
		return Action{Kind: sc.KindTempControl}, true
	}
	return Action{}, false
}

// side is the side the clause names for a procedure, "" when it names none or both.
func (c clause) side() string {
	left, right := c.hasWord("left"), c.hasWord("right")
	switch {
	case left && !right:
		return "left"
	case right && !left:
		return "right"
	}
	return ""
}

// compressions reads a stated rate ("at 110 a minute") and quality ("too shallow").
func (c clause) compressions() Action {
	a := Action{Kind: sc.KindCPR}
	for _, lx := range c {
		if lx.cat == catNum && lx.num >= 40 && lx.num <= 200 {
			a.Rate = int(lx.num)
		}
	}
	if c.has(catPoor) {
		a.Quality = QualityPoor
	}
	return a
}
