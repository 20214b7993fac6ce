package knowledge

import (
	"strings"
)

// A protocol question asks what the guidance says (a dose, a target, a threshold, a step,
// a handoff format), not what the patient feels or what the monitor shows.
var (
	// questionStart opens a question or a request for information without a question mark.
	questionStart = lazyRegexp(`^(what|what's|whats|which|how|when|why|where|who|should|shall|can|could|is|are|does|do|would|tell me|remind me|explain|according to|in what|at what)\b`)

	// protocolTerm names what guidance answers.
	protocolTerm = lazyRegexp(`\b(doses?|dosage|dosing|how much|how many (mg|milligrams?|micrograms?|mcg|ml|litres?|l)|mg|micrograms?|mcg|guidelines?|guidance|protocols?|targets?|thresholds?|range|maximum|max|minimum|limit|repeat(ed)?|interval|how often|how long|how soon|how quickly|within|contraindicat\w*|indicat\w*|first[- ]line|second[- ]line|recommend\w*|criteria|scor(e|es|ing)|news2|escalat\w*|sbar|i-?pass|mist|atmist|hand ?(off|over)|route|concentration|should (i|we) (give|use|start|stop|avoid)|can (i|we) (give|use)|is it safe|safe to give|what (do|should) (i|we) give|how (do|should) (i|we) (treat|manage|give|assess)|treatment (of|for)|manage(ment)? (of|for)|normal range|cut-?off|stand for|steps?|when should|consider(ed)?)\b`)

	// patientDirected marks a question to the patient about themselves.
	patientDirected = lazyRegexp(`\b(do you|are you|have you|did you|were you|will you|your|you feel|you take|you have|you on)\b`)

	// patientData asks for this patient's numbers, which the engine owns.
	patientData = lazyRegexp(`\b(her|his|their|the patient's|patient's) (current |latest |last )?(news2|score|sats|saturations?|spo2|bp|blood pressure|pulse|heart rate|hr|rr|resp\w* rate|temp\w*|glucose|sugar|bm|gcs|vitals|obs|observations)\b`)
)

// IsProtocolQuestion reports whether a trainee's message asks what the guidance says, so
// the caller can send it to the Preceptor with retrieved passages. Orders ("give 0.5 mg
// adrenaline IM"), questions to the patient ("what dose do you take?") and requests for the
// patient's numbers ("what's her BP?") are not protocol questions.
func IsProtocolQuestion(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" || strings.HasPrefix(t, "/") {
		return false
	}
	if !strings.HasSuffix(t, "?") && !questionStart().MatchString(t) {
		return false
	}
	return protocolTerm().MatchString(t) && !patientDirected().MatchString(t) && !patientData().MatchString(t)
}
