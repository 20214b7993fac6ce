package memory

// Rule names why an item was recalled; the inspector and the trace show it.
type Rule string

// The five recall rules, safety first, numbered as ARCHITECTURE.md lists them.
const (
	RuleCore        Rule = "core"         // 1: current vitals, current state, last 3 actions
	RuleSafety      Rule = "safety"       // 2: a treatment brings every safety disclosure + last 5 actions
	RuleQuestion    Rule = "question"     // 3: a question brings the disclosures of its topic
	RuleEarly       Rule = "early"        // 4: under EarlyPhase everything is recalled
	RuleVitalsTrend Rule = "vitals_trend" // 5: a vitals check brings the last 3 measurements
)

var ruleNumberOrder = []Rule{RuleCore, RuleSafety, RuleQuestion, RuleEarly, RuleVitalsTrend}

// EarlyPhase is how long memory stays small enough to recall in full (rule 4), in sim seconds.
const EarlyPhase = 10 * 60

// Selected is one recalled item and the rule that chose it. Index is the item's position in its
// category, which identifies it within the memory.
type Selected struct {
	Category Category `json:"category"`
	Index    int      `json:"index"`
	Item     Item     `json:"item"`
	Rule     Rule     `json:"rule"`
}

// Protected items are the safety disclosures of a treatment turn: no budget may drop them.
func (s Selected) Protected() bool {
	return s.Rule == RuleSafety && s.Category == PatientDisclosures
}

// Selection is what recall chose for one turn. Items are in render order (category order, then
// oldest first); Rules lists the rules whose condition held, in rule-number order. Shown holds,
// in the same order, the items a rule chose that the message window already shows, so they are
// left out of the prompt; the inspector counts them.
type Selection struct {
	Start float64    `json:"start"`
	Rules []Rule     `json:"rules"`
	Items []Selected `json:"items"`
	Shown []Selected `json:"shown,omitempty"`
}

// Recall chooses what this turn's prompt should remember. It never changes the memory.
//
// Rules are applied strongest first, so an item chosen by several rules keeps the strongest
// reason: safety, then core, then the vitals trend, then the question, then the early phase.
// An item the message window already shows is not repeated, unless it is a safety item.
func (m *Memory) Recall(turn Turn) Selection {
	s := picker{m: m, turn: turn, picked: map[pickKey]Rule{}, fired: map[Rule]bool{}}
	if turn.has(PartTreatment) {
		s.fire(RuleSafety)
		s.pickWhere(PatientDisclosures, RuleSafety, func(it Item) bool { return it.Topic.IsSafety() })
		s.pickLast(CriticalActions, 5, RuleSafety)
	}
	s.fire(RuleCore)
	s.pickLast(VitalsMeasurements, 1, RuleCore)
	s.pickLast(StateHistory, 1, RuleCore)
	s.pickLast(CriticalActions, 3, RuleCore)
	if turn.has(PartVitals) {
		s.fire(RuleVitalsTrend)
		s.pickLast(VitalsMeasurements, 3, RuleVitalsTrend)
	}
	if asked := turn.askedTopics(); len(asked) > 0 {
		s.fire(RuleQuestion)
		s.pickWhere(PatientDisclosures, RuleQuestion, func(it Item) bool { return asked[it.Topic] })
	}
	if m.Elapsed(turn.Now) < EarlyPhase {
		s.fire(RuleEarly)
		for _, c := range Categories {
			s.pickWhere(c, RuleEarly, func(Item) bool { return true })
		}
	}
	return s.selection()
}

type pickKey struct {
	c Category
	i int
}

type picker struct {
	m      *Memory
	turn   Turn
	picked map[pickKey]Rule
	fired  map[Rule]bool
}

func (p *picker) fire(r Rule) { p.fired[r] = true }

func (p *picker) pick(c Category, i int, r Rule) {
	k := pickKey{c, i}
	if _, done := p.picked[k]; !done {
		p.picked[k] = r
	}
}

func (p *picker) pickLast(c Category, n int, r Rule) {
	items := p.m.Items(c)
	for i := max(0, len(items)-n); i < len(items); i++ {
		p.pick(c, i, r)
	}
}

func (p *picker) pickWhere(c Category, r Rule, keep func(Item) bool) {
	for i, it := range p.m.Items(c) {
		if keep(it) {
			p.pick(c, i, r)
		}
	}
}

func (p *picker) selection() Selection {
	s := Selection{Start: p.m.Start}
	for _, r := range ruleNumberOrder {
		if p.fired[r] {
			s.Rules = append(s.Rules, r)
		}
	}
	for _, c := range Categories {
		for i, it := range p.m.Items(c) {
			r, ok := p.picked[pickKey{c, i}]
			if !ok {
				continue
			}
			x := Selected{Category: c, Index: i, Item: it, Rule: r}
			if p.turn.inWindow(c, it) && !x.Protected() {
				s.Shown = append(s.Shown, x)
			} else {
				s.Items = append(s.Items, x)
			}
		}
	}
	return s
}
