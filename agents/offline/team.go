package offline

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
)

// teamReply is what a non-Patient agent says with no model. ok is false for agents it does not
// play (the Patient, a user-defined agent), whose voice is the patient's.
func teamReply(agent, input string, f agents.TurnFacts) (reply string, ok bool) {
	switch strings.ToLower(agent) {
	case strings.ToLower(agents.AgentOrchestrator):
		return orchestrator(input, f), true
	case strings.ToLower(agents.AgentMonitor):
		return monitor(f.Measured), true
	case strings.ToLower(agents.AgentPharmacist):
		if answer, ok := protocolAnswer(input, f.Knowledge); ok && len(f.Checks) == 0 {
			return answer, true
		}
		return pharmacist(f.Checks, f.Orders, f.Verdicts), true
	case strings.ToLower(agents.AgentPreceptor):
		if answer, ok := protocolAnswer(input, f.Knowledge); ok && f.Review == "" {
			return answer, true
		}
		return preceptor(f.Review) + earlierShifts(f.EarlierShifts), true
	}
	return "", false
}

// protocolAnswer answers a protocol question, or anything put with /ask, without a model, by
// quoting the best of the turn's passages with its citation.
func protocolAnswer(input string, ps []knowledge.Passage) (string, bool) {
	question := agents.WithoutMention(input)
	asked := question != strings.TrimSpace(input) && strings.HasPrefix(strings.ToLower(strings.TrimSpace(input)), agents.AskCommand)
	if !asked && !knowledge.IsProtocolQuestion(question) {
		return "", false
	}
	answer, ok := knowledge.Extract(question, ps)
	if !ok {
		return "", false
	}
	return "From the protocol cards: " + answer, true
}

// specialistTopics place a request that plainly belongs to one specialist.
var specialistTopics = []struct {
	agent string
	words *regexp.Regexp
}{
	{agents.AgentMonitor, regexp.MustCompile(`(?i)\b(?:vitals?|trends?|spo2|sats|saturations?|heart rate|hr|blood pressure|bp|resp(?:iratory)? rate|rr|news2?|obs|observations|monitor)\b`)},
	{agents.AgentPharmacist, regexp.MustCompile(`(?i)\b(?:doses?|dosing|drugs?|medications?|meds|allerg\w*|interactions?|contraindicat\w*|mg|safe to give)\b`)},
	{agents.AgentPreceptor, regexp.MustCompile(`(?i)\b(?:debrief|feedback|how am i doing|how did i do|teach|hints?|aar)\b`)},
}

// orchestrator hands a one-specialist request straight to that
// specialist, and otherwise proposes a plan and waits for confirmation. It
// names who does what and gives no clinical advice of its own.
func orchestrator(input string, f agents.TurnFacts) string {
	var matched []string
	for _, s := range specialistTopics {
		if s.words.MatchString(input) {
			matched = append(matched, s.agent)
		}
	}
	if len(matched) == 1 {
		return fmt.Sprintf("That one is for the %s. Back to you, %s.", matched[0], matched[0])
	}
	steps := []string{agents.AgentMonitor + " — read the latest measured vitals, their trend and NEWS2."}
	if len(f.Orders) > 0 || len(f.Verdicts) > 0 {
		steps = append(steps, agents.AgentPharmacist+" — explain the engine's safety verdicts on what has been ordered.")
	}
	steps = append(steps, agents.AgentPreceptor+" — coach you on the next priority.")
	var b strings.Builder
	b.WriteString("Here is a plan, one team member at a time:\n")
	for i, s := range steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	b.WriteString("Reply yes to start, or tell me what to change. Shall I go ahead?")
	return b.String()
}

// monitor reads back the latest measured reading and its change
// since the one before. Unmeasured values are said to be unmeasured.
func monitor(given *[]agents.Reading) string {
	var readings []agents.Reading
	if given != nil {
		readings = *given
	}
	if len(readings) == 0 {
		return "No vitals have been measured yet, so there is nothing to read. Check vitals or attach a monitor and I will read them out."
	}
	last := readings[len(readings)-1]
	line, missing := readout(last)
	if last.NoOutput { // an arrest: the zeros are findings
		line, missing = "no pulse, no recordable blood pressure, no SpO2 trace, "+breathing(last.RR)+line, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured at %s: %s.", memory.Clock(last.T), line)
	if len(missing) > 0 {
		fmt.Fprintf(&b, " Not measured: %s.", strings.Join(missing, ", "))
	}
	if len(last.ScoringThree) > 0 {
		fmt.Fprintf(&b, " Red score (one parameter alone calls for an urgent review): %s.", strings.Join(last.ScoringThree, ", "))
	}
	if len(readings) > 1 {
		prev := readings[len(readings)-2]
		b.WriteString(" " + vitalsTrend(prev, last))
	}
	return b.String()
}

// vitalField is one vital sign as the Monitor names its change.
type vitalField struct {
	label string
	value func(memory.Vitals) float64
}

var vitalFields = []vitalField{
	{"HR", func(v memory.Vitals) float64 { return v.HR }},
	{"RR", func(v memory.Vitals) float64 { return v.RR }},
	{"SpO2", func(v memory.Vitals) float64 { return v.SpO2 }},
	{"SBP", func(v memory.Vitals) float64 { return v.SBP }},
	{"DBP", func(v memory.Vitals) float64 { return v.DBP }},
	{"T", func(v memory.Vitals) float64 { return v.Temp }},
	{"GCS", func(v memory.Vitals) float64 { return v.GCS }},
}

// readout is a reading in the words of the engine's own readout ("HR 58, RR 6, SpO2 78% (air),
// BP 104/62, T 36.2, GCS 7 — NEWS2 10 high"), so the Monitor reads a measurement out the same way
// whichever backend plays it. missing names what the reading lacks.
func readout(r agents.Reading) (line string, missing []string) {
	air := "air"
	if r.OnOxygen {
		air = "O2"
	}
	var parts []string
	say := func(label string, x float64, text string) {
		if x == 0 {
			missing = append(missing, label)
			return
		}
		parts = append(parts, label+" "+text)
	}
	say("HR", r.HR, exactNumber(r.HR))
	say("RR", r.RR, exactNumber(r.RR))
	say("SpO2", r.SpO2, exactNumber(r.SpO2)+"% ("+air+")")
	bp := exactNumber(r.SBP)
	if r.DBP != 0 {
		bp += "/" + exactNumber(r.DBP)
	}
	say("BP", r.SBP, bp)
	say("T", r.Temp, strconv.FormatFloat(r.Temp, 'f', 1, 64)) // the engine measures it to 0.1
	gcs := exactNumber(r.GCS)
	if r.AVPU != "" {
		gcs += " (" + r.AVPU + ")"
	}
	say("GCS", r.GCS, gcs)
	if r.EtCO2 > 0 { // only capnography measures it, so its absence is not news
		parts = append(parts, "EtCO2 "+strconv.Itoa(r.EtCO2))
	}
	line = strings.Join(parts, ", ")
	if line == "" {
		line = "no values"
	}
	if r.Score != "" {
		line += " — " + r.Score
	}
	return line, missing
}

func vitalsTrend(prev, last agents.Reading) string {
	var changes []string
	for _, f := range vitalFields {
		a, b := f.value(prev.Vitals), f.value(last.Vitals)
		if a == 0 || b == 0 || a == b {
			continue
		}
		dir := "up"
		if b < a {
			dir = "down"
		}
		changes = append(changes, fmt.Sprintf("%s %s from %s", f.label, dir, exactNumber(a)))
	}
	if len(changes) == 0 {
		return fmt.Sprintf("No change since %s.", memory.Clock(prev.T))
	}
	return fmt.Sprintf("Since %s: %s.", memory.Clock(prev.T), strings.Join(changes, ", "))
}

// exactNumber prints a value exactly as the engine gave it: rounding could
// move it across a NEWS2 boundary.
func exactNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// pharmacist says the engine's word on this turn's orders first, as the engine put it, then its
// verdict on every order so far, and says so when the engine raised none. It never judges a drug
// the engine has not.
func pharmacist(checks []agents.OrderCheck, orders []agents.Order, verdicts []agents.Verdict) string {
	if len(checks) == 0 && len(orders) == 0 && len(verdicts) == 0 {
		return "Nothing has been ordered yet, so the engine has no verdict for me to explain. Before any drug, confirm the patient's allergies and current medications."
	}
	var lines []string
	for _, c := range checks {
		if c.Say != "" {
			lines = append(lines, c.Say)
		}
	}
	flagged := map[string]bool{}
	for _, v := range verdicts {
		flagged[strings.ToLower(v.Drug)] = true
		lines = append(lines, verdictLine(v))
	}
	for _, o := range orders {
		if !flagged[strings.ToLower(o.Drug)] {
			lines = append(lines, fmt.Sprintf("%s: no safety concern on record.", orderText(o)))
		}
	}
	return strings.Join(lines, "\n")
}

// verdictLine is a drug-class verdict in plain words, with no rule name.
func verdictLine(v agents.Verdict) string {
	switch v.Level {
	case "hard_stop":
		return fmt.Sprintf("STOP — %s: %s. It is not to be given.", v.Drug, v.Reason)
	case "warn":
		return fmt.Sprintf("Caution — %s: %s.", v.Drug, v.Reason)
	}
	return fmt.Sprintf("%s: %s.", v.Drug, v.Reason)
}

func orderText(o agents.Order) string {
	parts := []string{o.Drug}
	if o.DoseMg > 0 {
		parts = append(parts, exactNumber(o.DoseMg)+" mg")
	}
	if o.Route != "" {
		parts = append(parts, o.Route)
	}
	return strings.Join(parts, " ")
}

// debriefSections are the review's lines, by the label each starts with, in the order a
// debrief takes them; uncut sections are never shortened.
var debriefSections = []struct {
	label, heading string
	uncut          bool
}{
	{"Critical error: ", "Critical errors", true},
	{"Missed critical action: ", "Missed critical actions", true},
	{"Near miss: ", "Near misses", true},
	{"Diagnosis: ", "Your diagnosis", true},
	{"Disposition: ", "Your disposition", true},
	{"Reflection: ", "Your reflections, against the key points", true},
	{"Plus: ", "What went well", false},
	{"Delta: ", "What to change", false},
	{"Instructor: ", "What the instructor injected", true},
	{"Team: ", "The team", true},
}

// debriefShown bounds the plus and delta lines to what a trainee reads at once; the full review
// has the rest.
const debriefShown = 4

// preceptor coaches with the standard approach before there is a review, and debriefs from the
// review's own lines once there is one: every critical error, missed critical action and near miss, then
// the best of what went well and what to change, then the score and how it was reached.
func preceptor(aar string) string {
	if strings.TrimSpace(aar) == "" {
		return "Work through it in order: airway, breathing, circulation, disability, exposure. " +
			"Reassess and recheck vitals after every intervention. Type /aar when you want a debrief."
	}
	lines := strings.Split(aar, "\n")
	var b strings.Builder
	b.WriteString("Debrief, from the After Action Review:")
	for _, sec := range debriefSections {
		var items []string
		for _, l := range lines {
			if item, ok := strings.CutPrefix(strings.TrimSpace(l), sec.label); ok {
				items = append(items, item)
			}
		}
		if len(items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n\n**%s**", sec.heading)
		shown := items
		if !sec.uncut && len(items) > debriefShown {
			shown = items[:debriefShown]
		}
		for _, it := range shown {
			b.WriteString("\n- " + it)
		}
		if len(shown) < len(items) {
			fmt.Fprintf(&b, "\n- …and %d more in the full review.", len(items)-len(shown))
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "Score ") {
			b.WriteString("\n\n" + l)
		}
	}
	b.WriteString("\n\nWhich one thing will you do differently next time?")
	return b.String()
}

// earlierShifts says what recurs across the trainee's earlier shifts, after a debrief.
func earlierShifts(recurring []string) string {
	if len(recurring) == 0 {
		return ""
	}
	return "\n\nAcross your earlier shifts, the same again:\n- " + strings.Join(recurring, "\n- ") +
		"\nThat is a pattern now, not a slip: make it the first thing you change."
}

// breathing is what a patient in cardiac arrest is doing for breath: gasping or ventilated (a
// rate), or nothing; readout names the rate itself when there is one.
func breathing(rr float64) string {
	if rr == 0 {
		return "not breathing, "
	}
	return ""
}
