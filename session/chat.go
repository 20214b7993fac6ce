package session

import (
	"slices"
	"time"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
)

// chat is the conversation's own state across turns: the newest messages of the active
// conversation held in memory (the full history stays in the store), where each patient's last
// prompt window began, and the token estimator the model's answers calibrate. The converse stage
// reads it for prompts; the record stage appends to it once the store has what it appends.
type chat struct {
	history []memory.Message // the newest messages of the active conversation, oldest first
	window  memory.Window    // the configured message window, which says how much is held
	est     memory.Estimator // calibrated from Ollama's prompt_eval_count as calls come back
	// windowFrom is, per patient, the wall time of the first message its last prompt's window
	// showed: a later one means the window left messages behind (prune.go).
	windowFrom map[string]time.Time
}

// recentLimit is about how much of a conversation is held in memory for prompts, unless the
// window wants more. It covers the default windows with room to spare; the full history stays in
// the store.
const recentLimit = 64

// load makes patientID's conversation ("" for the session's own) the one held: its newest
// messages, starting at a multiple of the window's step, so a block window computed on what is
// held starts exactly where it would on the whole history.
func (c *chat) load(tx *persist.Tx, patientID string) error {
	n := tx.Len(patientID)
	held := c.held()
	keep := min(n, held+(n-held)%c.step())
	h, err := tx.Recent(patientID, keep)
	c.history = h
	return err
}

// remember appends to the conversation held, dropping its oldest messages a whole window step
// at a time, for the same alignment.
func (c *chat) remember(msgs ...memory.Message) {
	c.history = append(c.history, msgs...)
	if extra := len(c.history) - c.held(); extra >= c.step() {
		drop := extra / c.step() * c.step()
		c.history = append(c.history[:0:0], c.history[drop:]...)
	}
}

func (c *chat) step() int { return max(c.window.Step, 1) }

// held is how many messages the conversation in memory keeps: enough for the largest window the
// configuration can build, and at least recentLimit.
func (c *chat) held() int {
	return max(recentLimit, max(c.window.Early, c.window.Late)+2*c.step())
}

// priorTo is active's conversation as it stood before the typed text: a text typed in it is its
// newest message.
func (c *chat) priorTo(typed *typedText, active string) []memory.Message {
	h := c.history
	if typed != nil && typed.stored && typed.to == active && len(h) > 0 {
		h = h[:len(h)-1]
	}
	return slices.Clone(h)
}

// lastUserMessage is the index of the last thing the trainee said in the conversation held, -1
// when they have said nothing in it.
func (c *chat) lastUserMessage() int {
	for i := len(c.history) - 1; i >= 0; i-- {
		if c.history[i].Role == memory.RoleUser {
			return i
		}
	}
	return -1
}

// lineTokens is what memory items cost in a prompt's memory section, one "- line" each.
func (c *chat) lineTokens(lines []string) int {
	n := 0
	for _, l := range lines {
		n += c.est.TokensOfLength(len("- ") + len(l) + len("\n"))
	}
	return n
}

// leftBehind is what patient's conversation window left behind since their last prompt: window
// is the conversation before the trainee's text, shown the part the prompt carries. The first
// prompt of a patient in this process only marks where the window starts, as what fell out
// before was reported when it fell.
func (c *chat) leftBehind(patient string, window, shown []memory.Message) []memory.Message {
	if patient == "" || len(shown) == 0 {
		return nil
	}
	from := shown[0].At
	last, seen := c.windowFrom[patient]
	if c.windowFrom == nil {
		c.windowFrom = map[string]time.Time{}
	}
	c.windowFrom[patient] = from
	if !seen || !from.After(last) {
		return nil
	}
	var left []memory.Message
	for _, m := range window[:len(window)-len(shown)] {
		if !m.At.Before(last) {
			left = append(left, m)
		}
	}
	return left
}
