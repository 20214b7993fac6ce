package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// The bounded-growth simulation: 40 exchanges over 20 sim minutes of a chest-pain call, with
// engine events recorded into memory and recall run every turn, in each window mode beside full
// history. Sizes are meant to be realistic for ward: a 1,200-token static system text (core
// instructions plus the scenario baseline), 60–160 character trainee lines, 100–200 token
// patient replies, a check_vitals tool round trip on every vitals check, and a ~150-token
// dynamic context (current vitals and the patient snapshot).

const (
	growthExchanges = 40
	growthSpacing   = 30.0 // sim seconds between exchanges: 40 exchanges in 20 minutes
)

var growthStatic = strings.Repeat("You are the patient in a prehospital chest-pain scenario. ", 90)[:4800]

var growthDynamic = `Current measured vitals: HR 104 RR 20 SpO2 96% BP 136/84 T 37.1 GCS 15. ` +
	`Patient snapshot: {"patient_id":"patient_1","name":"Martin Hale","age":58,"state":"stable",` +
	`"location":"living room floor","on_oxygen":true,"iv_access":true,"monitor":"3-lead",` +
	`"scenario":"acs-nstemi","elapsed":"T+12:30","speaker":"patient","mood":"anxious but cooperative"}` +
	` Respond in character; describe only what the trainee can see and hear.`

type scriptLine struct {
	user  string
	parts []Part
	reply string
}

var growthScript = []scriptLine{
	{"Hi, I'm Sam, a paramedic. Can you tell me what's been happening today?",
		[]Part{{Kind: PartQuestion, Name: "events"}},
		`*Martin is sitting against the sofa, one fist pressed to his sternum, sweat beading on his forehead.* ` +
			`"I was carrying the shopping in from the car and this pressure came on, right here. ` +
			`I thought it was indigestion at first but it hasn't gone away, and now my left arm feels heavy. ` +
			`My wife made me call. I'm sorry to bother you, I'm sure it's nothing."`},
	{"I'm going to put this oxygen mask on you, a non-rebreather at fifteen litres.",
		[]Part{{Kind: PartTreatment, Name: "oxygen"}},
		`*He lets you fit the mask, fumbling with the strap, and takes a few shaky breaths as the bag inflates.* ` +
			`"It smells like plastic. Is that normal?" *His breathing slows a little, though his hand stays on his chest.*`},
	{"Let me check your vitals now, I'll put the monitor on.",
		[]Part{{Kind: PartVitals}},
		`*The cuff tightens around his arm and he winces.* The monitor shows a sinus tachycardia. ` +
			`"Is my heart going too fast? It feels like it's thumping." *He watches the screen, eyes wide.*`},
	{"Do you take any regular medications? And do you have any allergies?",
		[]Part{{Kind: PartQuestion, Name: "medications"}, {Kind: PartQuestion, Name: "allergies"}},
		`"Ramipril for my blood pressure, and a statin, simvastatin I think. The GP put me on them last year." ` +
			`*He pauses.* "Allergies... morphine. I had it after my knee operation and I stopped breathing, ` +
			`they had to give me something to reverse it. It's in my notes."`},
	{"When exactly did the pain start, and does it spread anywhere?",
		[]Part{{Kind: PartQuestion, Name: "onset"}, {Kind: PartQuestion, Name: "pain"}},
		`"About forty minutes ago, maybe a bit more. It goes into my jaw and down this arm." ` +
			`*He rubs his left forearm.* "It's like a band squeezing. Seven out of ten, I'd say."`},
	{"I'm giving you 300 mg of aspirin to chew, is that okay?",
		[]Part{{Kind: PartTreatment, Name: "aspirin"}},
		`"Chew it? Not swallow?" *He takes the tablets, chews and grimaces at the taste.* ` +
			`"Bitter. My dad had a heart attack at sixty, is that what this is?"`},
	{"Recheck his vitals please and get a 12-lead ECG.",
		[]Part{{Kind: PartVitals}, {Kind: PartTreatment, Name: "ecg"}},
		`*You place the chest leads as he lifts his shirt; his skin is cool and clammy.* ` +
			`The trace prints out. "What does it show? Be honest with me."`},
	{"How is the pain now, out of ten?",
		[]Part{{Kind: PartQuestion, Name: "pain"}},
		`*He considers, shifting against the sofa.* "A bit better maybe. Six? It's still there, ` +
			`that heavy feeling. The oxygen helps me feel less panicky at least."`},
}

var growthVitals = `{"hr":%d,"rr":%d,"spo2":%d,"sbp":%d,"dbp":88,"temp":37.1,"gcs":15}`

// growthRun plays the script and returns, per exchange, the estimated prompt tokens and how many
// of them are a byte-identical prefix of the previous prompt (what Ollama's KV cache can reuse:
// the static text, plus the previous window when the window's start did not move). window nil
// means full history.
func growthRun(window func([]api.Message, float64) []api.Message) (tokens, reusable []int) {
	var e Estimator
	m := New(0)
	_ = m.Record(StateHistory, Item{T: 0, Text: "initial: scenario start"})
	var history []api.Message
	disclosed := map[string]bool{}
	tokens, reusable = make([]int, growthExchanges+1), make([]int, growthExchanges+1)
	prevStart, prevWindow := -1, 0
	for k := 1; k <= growthExchanges; k++ {
		now := float64(k) * growthSpacing
		line := growthScript[(k-1)%len(growthScript)]
		vitals := Vitals{HR: float64(118 - k/2), RR: float64(26 - k/5), SpO2: float64(90 + k/8), SBP: float64(150 - k/3), DBP: 88}
		growthEngine(m, now, line, vitals, disclosed)

		win := history
		if window != nil {
			win = window(history, m.Elapsed(now))
		}
		start := len(history) - len(win)
		reusable[k] = e.Tokens(growthStatic)
		if start == prevStart {
			reusable[k] += prevWindow
		}
		prevStart, prevWindow = start, e.Messages(win)
		mem := m.Recall(Turn{Now: now, Parts: line.parts}).Render()
		tokens[k] = e.Tokens(growthStatic) + e.Messages(win) + e.Tokens(growthDynamic) + e.Tokens(mem) +
			e.Messages([]api.Message{{Role: "user", Content: line.user}})

		history = append(history, api.Message{Role: "user", Content: line.user})
		if line.parts[0].Kind == PartVitals {
			history = append(history,
				api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{
					Name: "check_vitals", Arguments: api.ToolCallFunctionArguments{"patient_id": "patient_1"}}}}},
				api.Message{Role: "tool", Content: fmt.Sprintf(growthVitals, int(vitals.HR), int(vitals.RR), int(vitals.SpO2), int(vitals.SBP))})
		}
		history = append(history, api.Message{Role: "assistant", Content: line.reply})
	}
	return tokens, reusable
}

// growthEngine records what the engine would have reported for this exchange.
func growthEngine(m *Memory, now float64, line scriptLine, v Vitals, disclosed map[string]bool) {
	for _, p := range line.parts {
		switch p.Kind {
		case PartVitals:
			_ = m.Record(VitalsMeasurements, Item{T: now, Vitals: &v})
		case PartTreatment:
			_ = m.Record(CriticalActions, Item{T: now, Text: p.Name + " given"})
		case PartQuestion:
			if p.Name == "pain" || !disclosed[p.Name] { // pain is re-scored each time it is asked
				disclosed[p.Name] = true
				_ = m.Record(PatientDisclosures, Item{T: now, Topic: Topic(p.Name), Text: "answer about " + p.Name + " in the patient's words"})
			}
		}
	}
	if int(now)%300 == 0 {
		_ = m.Record(StateHistory, Item{T: now, Text: fmt.Sprintf("stable: reassessed at %d min", int(now)/60)})
	}
	m.Prune()
}

var growthModes = []struct {
	name   string
	window func([]api.Message, float64) []api.Message
}{
	{"block (default)", DefaultWindow().Apply},
	{"sliding (seed)", SeedWindow().Apply},
	{"full history", nil},
}

// reusedShare is the share of all prompt tokens over exchanges 2..40 that repeat the previous
// prompt's prefix.
func reusedShare(tokens, reusable []int) float64 {
	var all, reused int
	for k := 2; k <= growthExchanges; k++ {
		all += tokens[k]
		reused += reusable[k]
	}
	return float64(reused) / float64(all)
}

// seedExchange40 is the seed's bounded figure at exchange 40, the number to beat.
const seedExchange40 = 6400

func TestBoundedGrowth(t *testing.T) {
	var table strings.Builder
	fmt.Fprintf(&table, "%-16s %7s %7s %7s %7s %8s %12s %9s\n", "mode", "ex 1", "ex 10", "ex 20", "ex 40", "40 / 10", "peak 11-40", "reusable")
	for _, mode := range growthModes {
		tok, reusable := growthRun(mode.window)
		ratio := float64(tok[40]) / float64(tok[10])
		peak := slices.Max(tok[11:])
		fmt.Fprintf(&table, "%-16s %7d %7d %7d %7d %8.2f %7d %4.2f %8.0f%%\n", mode.name, tok[1], tok[10], tok[20], tok[40], ratio,
			peak, float64(peak)/float64(tok[10]), 100*reusedShare(tok, reusable))
		if mode.window == nil {
			// Linear: the per-exchange growth from 20 to 40 matches that from 10 to 20.
			slope1, slope2 := float64(tok[20]-tok[10])/10, float64(tok[40]-tok[20])/20
			if slope2 < 0.75*slope1 || slope2 > 1.25*slope1 || tok[40] < 2*tok[10] {
				t.Errorf("full history should grow linearly: %.0f then %.0f tokens per exchange", slope1, slope2)
			}
			continue
		}
		// The block window's size depends on where exchange 40 falls in its cycle, so the peak
		// over every later exchange is held to the same bound.
		if ratio > 1.15 || float64(peak) > 1.15*float64(tok[10]) {
			t.Errorf("%s: exchange 40 is %.2f x exchange 10 (peak %d), want <= 1.15", mode.name, ratio, peak)
		}
		if tok[40] >= seedExchange40 {
			t.Errorf("%s: %d tokens at exchange 40, the seed had %d", mode.name, tok[40], seedExchange40)
		}
	}
	t.Logf("estimated prompt tokens (static %d); reusable = share of prompt tokens over exchanges 2-40 that "+
		"repeat the previous prompt's prefix:\n%s", (&Estimator{}).Tokens(growthStatic), table.String())
}
