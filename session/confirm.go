package session

import (
	"strings"

	"github.com/ward-sim/ward/agents/analyzer"
)

// ConfirmEvent asks the trainee before the turn does something that cannot be undone, such as
// admitting a new patient named in free text when the shift already has patients. Line is the
// exact input that does it if the trainee says yes; the turn itself changes nothing.
type ConfirmEvent struct {
	Question string `json:"question"`
	Line     string `json:"line"`
}

func (ConfirmEvent) Kind() string { return "confirm" }

// IsClearRequest reports whether text would clear the shift: /clear, or wording the rules read as
// a clear without doubt. A screen asks before sending it.
func IsClearRequest(text string) bool {
	text = strings.TrimSpace(text)
	if name, _, _ := strings.Cut(text, " "); strings.EqualFold(name, CmdClear) {
		return true
	}
	if strings.HasPrefix(text, "/") {
		return false
	}
	d, sure := analyzer.RulesAnalyzer{}.Decide(analyzer.AnalyzerInput{Text: text})
	return sure && d.Action == analyzer.ActionClear
}
