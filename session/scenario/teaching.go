package scenario

// Findings is what a bedside examination finds, by region. A scenario's Findings are the
// baseline every state inherits; a state's Findings override them region by region.
//
// Regions: airway, breathing (inspection of the chest and work of breathing), percussion,
// auscultation (breath sounds), heart (heart sounds), pulses, cap_refill, skin, abdomen,
// pupils, gcs (by component, e.g. "E3 V4 M6"), limbs (neurovascular status), and focused (the
// system the scenario names for its own case).
type Findings map[string]string

// DiagnosisKey is what the trainee's working diagnosis is matched against.
type DiagnosisKey struct {
	// Accepted names the diagnosis: the first is how the debrief writes it, the rest are
	// synonyms and abbreviations that match as well.
	Accepted []string `yaml:"accepted" required:"true"`
	// Differentials are diagnoses that are reasonable to hold but are not this case.
	Differentials []string `yaml:"differentials"`
}

// DispositionKey is where the patient should go at the end of the case.
type DispositionKey struct {
	Accepted []string `yaml:"accepted" required:"true"` // resus|icu|hdu|ward|cath-lab|theatre|home
	Reason   string   `yaml:"reason" required:"true"`
}

// ReflectiveQuestion is asked in the debrief after the case; its key points are what a good
// answer names.
type ReflectiveQuestion struct {
	Question  string   `yaml:"question" required:"true"`
	KeyPoints []string `yaml:"key_points" required:"true"`
}
