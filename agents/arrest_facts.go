package agents

// ArrestFacts are a cardiac arrest as the team knows it at the bedside: how long since the
// collapse and since the last rhythm check, whether compressions are going, what has been given
// and whether there is a pulse. They never name the rhythm: reading it is the trainee's job.
type ArrestFacts struct {
	Since        string `json:"since_collapse"`               // mm:ss
	Compressions string `json:"compressions"`                 // going | stopped
	SinceCheck   string `json:"since_rhythm_check,omitempty"` // mm:ss; the next check is due at 2 minutes
	Shocks       int    `json:"shocks"`
	Adrenaline   string `json:"adrenaline,omitempty"` // "2 doses, the last 03:10 ago"
	Amiodarone   string `json:"amiodarone,omitempty"`
	Access       bool   `json:"iv_io_access"`
	Airway       string `json:"airway,omitempty"`
	Pulse        string `json:"pulse"` // none | present (after ROSC) | resuscitation stopped
}
