package memory

// PartKind is what the engine's action parser found in the trainee's message.
type PartKind string

const (
	PartVitals    PartKind = "vitals"
	PartTreatment PartKind = "treatment"
	PartQuestion  PartKind = "question"
)

// Part is one thing the trainee did or asked. Name is the treatment ("oxygen", "morphine") or the
// question's topic ("medications", "onset"); it may be empty for a vitals check. Kinds other than
// the three above are accepted as generic actions.
type Part struct {
	Kind PartKind `json:"kind"`
	Name string   `json:"name,omitempty"`
}

// Turn is what recall needs to know about the current turn.
type Turn struct {
	Now   float64 // sim clock, seconds
	Parts []Part
	// WindowFrom is the sim time of the first message in the prompt's message window, nil when
	// the window is empty. The conversation since then is in the prompt word for word, so recall
	// does not repeat what came of it.
	WindowFrom *float64
}

// conversational categories hold what came of the conversation itself: what the trainee did or
// asked, what the patient told, what the model recorded. The window shows these as they
// happened; the engine's own readings, state changes and errors it does not.
var conversational = map[Category]bool{
	CriticalActions: true, PatientDisclosures: true, CompoundActions: true, Assessments: true, KeyQuotes: true,
}

// inWindow reports whether the window already shows the item.
func (t Turn) inWindow(c Category, it Item) bool {
	return t.WindowFrom != nil && conversational[c] && it.T >= *t.WindowFrom
}

func (t Turn) has(k PartKind) bool {
	for _, p := range t.Parts {
		if p.Kind == k {
			return true
		}
	}
	return false
}

func (t Turn) askedTopics() map[Topic]bool {
	asked := map[Topic]bool{}
	for _, p := range t.Parts {
		if p.Kind == PartQuestion && p.Name != "" {
			asked[NormalizeTopic(p.Name)] = true
		}
	}
	return asked
}
