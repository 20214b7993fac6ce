package scenario

// The actions of a cardiac arrest, after the Resuscitation Council UK's adult ALS algorithm
// (2021): recognise it and call for help, compress, attach pads, charge and shock, check the
// rhythm and the pulse, name the rhythm, look for and treat the reversible causes, and after a
// return of circulation the care that follows (a referral is the general KindRefer).
const (
	KindArrestCall  ActionKind = "arrest_call"     // recognise the arrest and call the arrest team
	KindCPR         ActionKind = "cpr"             // start chest compressions; they go on until stopped
	KindStopCPR     ActionKind = "stop_cpr"        // pause or stop compressions
	KindPads        ActionKind = "pads"            // defibrillator pads on
	KindCharge      ActionKind = "charge"          // charge the defibrillator (during compressions)
	KindShock       ActionKind = "shock"           // stand clear and deliver a shock
	KindRhythmCheck ActionKind = "rhythm_check"    // pause to look at the rhythm
	KindPulseCheck  ActionKind = "pulse_check"     // feel for a central pulse
	KindNameRhythm  ActionKind = "name_rhythm"     // the trainee says what the rhythm is
	KindCauses      ActionKind = "consider_causes" // go through the 4 Hs and 4 Ts
	KindTreatCause  ActionKind = "treat_cause"     // treat a reversible cause (Action.Cause)
	KindStopResus   ActionKind = "stop_resuscitation"
	KindBPTarget    ActionKind = "bp_target"           // after ROSC: a blood pressure target
	KindTempControl ActionKind = "temperature_control" // after ROSC: prevent fever
)

// ArrestKind reports whether k is one of the arrest's own actions.
func (k ActionKind) ArrestKind() bool {
	switch k {
	case KindArrestCall, KindCPR, KindStopCPR, KindPads, KindCharge, KindShock, KindRhythmCheck, KindPulseCheck,
		KindNameRhythm, KindCauses, KindTreatCause, KindStopResus, KindBPTarget, KindTempControl:
		return true
	}
	return false
}
