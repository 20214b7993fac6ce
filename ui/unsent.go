package ui

// What the trainee typed outlives their screen at a server (ward serve): when a connection
// drops, the lines no turn has taken yet are handed to their next connection.

// Unsent is what the trainee typed that no turn has taken: the lines queued or held, oldest
// first (a switch asked for is not a line, and is left out), and the input's text, "" for none.
// Read it once the program has ended.
func (m *Model) Unsent() (lines []string, typed string) {
	for _, r := range append(m.queue[:len(m.queue):len(m.queue)], m.held...) {
		if r.line != "" {
			lines = append(lines, r.line)
		}
	}
	return lines, m.input.Value()
}

// restoreUnsent holds the lines a dropped connection left (Options.Unsent), for the trainee to
// send on with enter or take back with esc, and puts back what was in the input.
func (m *Model) restoreUnsent(lines []string, typed string) {
	if typed != "" { // setting a value makes the textarea a new buffer (240 KB); a new one is empty
		m.input.SetValue(typed)
	}
	if len(lines) == 0 {
		return
	}
	for _, line := range lines {
		m.held = append(m.held, request{line: line})
	}
	m.heldWhy = notice{text: "your connection dropped before these were sent", level: noticeWarn}
	m.showHeld()
}
