package memory

import (
	"fmt"
	"strings"
)

// Compound describes how many things one trainee message did and what the reply must cover.
type Compound struct {
	Checklist  []Part `json:"checklist"`   // every part, in the trainee's order
	NumPredict int    `json:"num_predict"` // output budget for the reply
}

// CompoundMin is the part count from which a message gets an explicit checklist.
const CompoundMin = 3

// DetectCompound counts the parts the engine's parser found plus any question the parser could
// not name: text holding more question marks than named questions adds unnamed question parts,
// counting each "?" as one question. Repeated parts count once.
func DetectCompound(parts []Part, text string) Compound {
	var list []Part
	seen := map[Part]bool{}
	named := 0
	for _, p := range parts {
		p = normalizePart(p)
		if seen[p] {
			continue
		}
		seen[p] = true
		list = append(list, p)
		if p.Kind == PartQuestion {
			named++
		}
	}
	for range max(0, strings.Count(text, "?")-named) {
		list = append(list, Part{Kind: PartQuestion})
	}
	return Compound{Checklist: list, NumPredict: numPredict(len(list))}
}

// normalizePart spells names one way, so "Meds" and "medications" are the same part.
func normalizePart(p Part) Part {
	p.Name = strings.ToLower(strings.TrimSpace(p.Name))
	if p.Kind == PartQuestion {
		p.Name = string(NormalizeTopic(p.Name))
	}
	return p
}

// BaseNumPredict is the output budget of a message with one or two parts.
const BaseNumPredict = 2000

// numPredict grows the output budget with the parts so the last answers are not cut off.
func numPredict(parts int) int {
	switch {
	case parts >= 5:
		return 2 * BaseNumPredict
	case parts >= CompoundMin:
		return 3 * BaseNumPredict / 2
	}
	return BaseNumPredict
}

// IsCompound reports whether the reply needs the explicit checklist.
func (c Compound) IsCompound() bool { return len(c.Checklist) >= CompoundMin }

// Summary names the parts in one line, for the compoundActions memory item and the trace.
func (c Compound) Summary() string {
	names := make([]string, len(c.Checklist))
	for i, p := range c.Checklist {
		names[i] = label(p)
	}
	return fmt.Sprintf("%d parts: %s", len(c.Checklist), strings.Join(names, ", "))
}

// label is a part's name, or its kind when it has none; questions end in "?".
func label(p Part) string {
	name := p.Name
	if name == "" {
		name = string(p.Kind)
	}
	if p.Kind == PartQuestion {
		name = strings.ReplaceAll(name, "_", " ") + "?"
	}
	return name
}

// Instruction is the checklist the reply must follow, or "" for a simple message.
func (c Compound) Instruction() string {
	if !c.IsCompound() {
		return ""
	}
	return checklistText(fmt.Sprintf("The trainee did %d things in one message. Cover every one of them, in this order:", len(c.Checklist)), c.Checklist)
}

// FollowUp asks once more for the parts the first reply left out, and only for those.
func FollowUp(missing []Part) string {
	if len(missing) == 0 {
		return ""
	}
	return checklistText("Your last reply left these out. Continue the scene and cover only these:", missing)
}

func checklistText(heading string, parts []Part) string {
	var b strings.Builder
	b.WriteString(heading + "\n")
	for i, p := range parts {
		fmt.Fprintf(&b, "%d. %s\n", i+1, describe(p))
	}
	b.WriteString("Do not skip any item. Use only vitals the engine measured; never invent a number.\n")
	return b.String()
}

func describe(p Part) string {
	switch p.Kind {
	case PartVitals:
		return "vitals check: show the measurement being taken and its result"
	case PartTreatment:
		if p.Name == "" {
			return "treatment: show how the patient responds to it"
		}
		return "treatment (" + p.Name + "): show how the patient responds to it"
	case PartQuestion:
		if p.Name == "" {
			return "another question in the message: the patient answers it"
		}
		return "question about " + strings.ReplaceAll(p.Name, "_", " ") + ": the patient answers it"
	}
	if p.Name == "" {
		return string(p.Kind) + ": respond to it"
	}
	return string(p.Kind) + " (" + p.Name + "): respond to it"
}
