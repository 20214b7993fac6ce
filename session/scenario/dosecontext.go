package scenario

// DoseContext is what a dose check needs to know about the patient.
type DoseContext struct {
	WeightKg float64 // 0 when not recorded: doses per kg use ReferenceWeightKg
	AgeYears float64 // 0 when not recorded; under AdultYears, the formulary's children's doses
	Arrest   bool    // in cardiac arrest, so routes kept for arrest are open
}

// Weight is the weight doses per kg are worked out from: the patient's, or ReferenceWeightKg.
func (c DoseContext) Weight() float64 {
	if c.WeightKg > 0 {
		return c.WeightKg
	}
	return ReferenceWeightKg
}

// IsChild reports whether the patient is dosed as a child: an age recorded and under AdultYears.
func (c DoseContext) IsChild() bool { return c.AgeYears > 0 && c.AgeYears < AdultYears }
