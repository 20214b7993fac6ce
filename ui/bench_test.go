package ui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ward-sim/ward/session/live"
)

// bigHistory is n messages of the mixed kinds a long shift produces.
func bigHistory(id string, n int) []live.ChatMessage {
	msgs := make([]live.ChatMessage, n)
	for i := range msgs {
		msg := live.ChatMessage{ID: fmt.Sprintf("%s-%d", id, i), Role: "user", Content: fmt.Sprintf("check her airway again (%d)", i)}
		switch i % 3 {
		case 1:
			msg.Role, msg.Agent = "assistant", "patient"
			msg.Content = fmt.Sprintf("It's **hard** to breathe (%d).\n\n- my throat feels tight\n- I'm itchy all over", i)
		case 2:
			msg.Role, msg.Content = "system", fmt.Sprintf("HR 118 · RR 26 · SpO2 90%% (%d)", i)
		}
		msgs[i] = msg
	}
	return msgs
}

// BenchmarkChatView10k is View() of the whole 120×40 screen with 10,000
// messages in the chat. Target: under 2 ms.
func BenchmarkChatView10k(b *testing.B) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 10_000)
	b.Run("first frame", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			m := newTestModel(b, f, 120, 40)
			_ = m.View()
		}
	})
	b.Run("steady", func(b *testing.B) {
		m := newTestModel(b, f, 120, 40)
		_ = m.View()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			_ = m.View()
		}
	})
	b.Run("paging", func(b *testing.B) {
		m := newTestModel(b, f, 120, 40)
		page := []tea.KeyMsg{keyMsg("pgup"), keyMsg("pgup"), keyMsg("pgdown"), keyMsg("pgdown")}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			m.Update(page[i%len(page)])
			_ = m.View()
		}
	})
}

// BenchmarkKeyboardSwitch is one alt+N press to the next View(), through
// Shift.Switch and Snapshot, with 1,000 messages per patient. Target:
// under 16 ms. "cold" renders the new patient's visible messages with
// glamour; "warm" has seen them before at this width.
func BenchmarkKeyboardSwitch(b *testing.B) {
	f := newFakeWard()
	for _, id := range []string{"patient_1", "patient_2", "patient_3"} {
		f.histories[id] = bigHistory(id, 1000)
	}
	// next is the key switching away from the active patient.
	next := map[string]tea.KeyMsg{"patient_1": keyMsg("alt+2"), "patient_2": keyMsg("alt+3"), "patient_3": keyMsg("alt+1")}
	for _, cold := range []bool{true, false} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			m := newTestModel(b, f, 120, 40)
			for i := 0; i < b.N; i++ {
				if cold {
					b.StopTimer()
					clear(m.chat.cache)
					b.StartTimer()
				}
				_, cmd := m.Update(next[m.state.Patient.ID])
				m.Update(cmd())
				_ = m.View()
			}
		})
	}
}

// BenchmarkStreaming2000Tokens streams a 2,000-token markdown answer
// through the real coalescer at 1,000 tokens a second and counts the
// re-renders (one per batch: Update then View). Target: about 70 or fewer.
// It also reports how much markdown glamour was given, relative to the
// answer: re-rendering only the unstable tail keeps this near 1.
func BenchmarkStreaming2000Tokens(b *testing.B) {
	toks := answerTokens(2000)
	size := 0
	for _, t := range toks {
		size += len(t)
	}
	var renders, rendered int
	for i := 0; i < b.N; i++ {
		f := newFakeWard()
		m := newTestModel(b, f, 120, 40)
		start := m.chat.md.rendered
		events := make(chan live.Update, len(toks))
		go produce(events, toks, time.Millisecond)
		m.turn = &turn{cancel: func() {}, events: events}
		cmd := readStream(f, events, streamWindow)
		for cmd != nil {
			_, cmd = m.Update(cmd())
			_ = m.View()
			renders++
		}
		rendered += m.chat.md.rendered - start
	}
	b.ReportMetric(float64(renders)/float64(b.N), "renders/op")
	b.ReportMetric(float64(rendered)/float64(b.N*size), "markdown-rendered/answer")
}

// produce sends token i at start + i×every, catching up when the timer is
// late, so the stream lasts len(toks)×every however coarse the timers are.
func produce(events chan<- live.Update, toks []string, every time.Duration) {
	start := time.Now()
	for i, tok := range toks {
		time.Sleep(time.Until(start.Add(time.Duration(i) * every)))
		events <- live.Update{Kind: live.UpdateDelta, MessageID: "r", Agent: "patient", Text: tok}
	}
	close(events)
}

// BenchmarkLightFrame is View() of the 120×40 screen in the light theme, which paints its own
// background under every line: the cost of painting over the dark theme's frame.
func BenchmarkLightFrame(b *testing.B) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 1000)
	for _, theme := range []string{"dark", "light"} {
		b.Run(theme, func(b *testing.B) {
			m := newThemedModel(b, f, theme, 120, 40)
			_ = m.View()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}

// BenchmarkSearchKeystroke is one key typed into the search with 1,000 messages held, then the
// frame: the query "(1" matches 111 of them, each rendered once before the timer starts.
func BenchmarkSearchKeystroke(b *testing.B) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 1000)
	m := newTestModel(b, f, 120, 40)
	press(b, m, "ctrl+f")
	typeText(m, "(1")
	keys := []tea.KeyMsg{keyMsg("backspace"), keyMsg("1")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(keys[i%len(keys)])
		_ = m.View()
	}
}

// BenchmarkFrameSizes is View() of the screen at 120×40 and at the largest ward serve draws
// (500×200, ui/lab): what a trainee's huge terminal costs the server a frame.
func BenchmarkFrameSizes(b *testing.B) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 1000)
	for _, size := range [][2]int{{120, 40}, {500, 200}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			m := newThemedModel(b, f, "dark", size[0], size[1])
			_ = m.View()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}

// BenchmarkKeystroke is a question typed a character at a time into the input of the 120×40
// screen, each character's Update and the frame after it, on the fake shift. The input is emptied
// after each question, as a sent turn does. What a class's typing costs the server per keystroke,
// on a real shift in its colours and with each question sent, is ui/lab's BenchmarkClassKeystroke.
func BenchmarkKeystroke(b *testing.B) {
	m := newTestModel(b, newFakeWard(), 120, 40)
	question := "how are you feeling t00q01"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(question) == 0 {
			m.input.Sent(m.input.Value())
		}
		m.Update(keyMsg(question[i%len(question) : i%len(question)+1]))
		_ = m.View()
	}
}
