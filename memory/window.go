package memory

// WindowMode chooses how the conversation window follows the history.
type WindowMode string

const (
	// WindowSliding always takes the last Early (then Late) messages. The window's
	// first message changes every turn, so Ollama can reuse only the static system text.
	WindowSliding WindowMode = "sliding"
	// WindowBlock keeps the window's first message fixed while the window grows by Step messages,
	// then jumps forward by Step. Between jumps the prompt up to the end of the previous window
	// is byte-identical, so Ollama reuses its KV cache for all of it.
	WindowBlock WindowMode = "block"
)

// Window is the message-window configuration. The lead persists it with the session settings.
type Window struct {
	Mode      WindowMode `json:"mode"`
	Early     int        `json:"early"`      // messages before LateAfter
	Late      int        `json:"late"`       // messages once the scenario is LateAfter old
	LateAfter float64    `json:"late_after"` // sim seconds
	Step      int        `json:"step"`       // block mode: how far the start jumps
}

// DefaultWindow is the cache-aware mode on the sliding window's sizes: at least 8 messages (10 after 10 sim
// minutes), growing by up to 8 before the start moves.
func DefaultWindow() Window {
	return Window{Mode: WindowBlock, Early: 8, Late: 10, LateAfter: EarlyPhase, Step: 8}
}

// SlidingWindow always keeps the last 8 messages (10 after 10 sim minutes), for comparison and
// for models without a KV cache.
func SlidingWindow() Window {
	w := DefaultWindow()
	w.Mode = WindowSliding
	return w
}

// Apply returns the part of history the prompt carries. history is the patient's conversation
// before this turn's user message; elapsed is the scenario's age in sim seconds. The window never
// starts on a tool result: a result whose call fell outside is dropped with it, so a tool call is
// never split from its results.
func (w Window) Apply(history []Message, elapsed float64) []Message {
	return history[w.start(history, elapsed):]
}

func (w Window) start(history []Message, elapsed float64) int {
	size := w.Early
	if elapsed >= w.LateAfter {
		size = w.Late
	}
	size = max(size, 1)
	n := len(history)
	if n <= size {
		return 0
	}
	start := n - size
	if w.Mode == WindowBlock {
		step := max(w.Step, 1)
		start = start / step * step
	}
	return skipToolResults(history, start)
}

// skipToolResults moves i forward to the first message that is not a tool result.
func skipToolResults(msgs []Message, i int) int {
	for i < len(msgs) && msgs[i].Role == RoleTool {
		i++
	}
	return i
}
