package lab

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/sessiontest"
	"github.com/ward-sim/ward/themes"
	"github.com/ward-sim/ward/ui"
)

// classQuestion is the i-th question as the load test's trainees type it (TestLoadOverSSH).
func classQuestion(i int) string { return fmt.Sprintf("how are you feeling t00q%02d", i%100) }

// BenchmarkClassKeystroke is what one trainee's keystroke costs ward serve, in the class's
// conditions: a real offline shift (quiet-night's roster, patient_1 reviewed, a chat of asked
// questions and their replies), the 120×40 screen in 256 colours with the theme converted as the
// server converts it, and the load test's question typed a character at a time.
//
// "update+view" is the screen's Update and View of each key, as the program calls them; each
// question is sent with enter and its turn played, the timer stopped, before the next is typed.
// "program" is the whole of it as a connection runs it: the key's bytes read and parsed by
// Bubble Tea, Update, View, and the renderer's flush of the frame to a writer, a frame awaited
// for each key as the load test awaits each on screen; its cpu-µs/key is the process's CPU
// time (every goroutine, the GC's too) over the keys typed.
//
// Run it with -benchtime 2600x (100 questions): every 26 keys play a real turn, so the default
// benchtime, which aims at a second of keystrokes, would play thousands.
func BenchmarkClassKeystroke(b *testing.B) {
	b.Run("update+view", func(b *testing.B) {
		m := classScreen(b)
		var question string
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			at := i % len(classQuestion(0))
			if at == 0 {
				b.StopTimer()
				if question != "" {
					ask(b, m, question)
				}
				question = classQuestion(asked + i/len(classQuestion(0)))
				b.StartTimer()
			}
			m.Update(questionKeys(question[at : at+1])[0])
			_ = m.View()
		}
	})
	b.Run("program", func(b *testing.B) {
		m := classScreen(b)
		out := &frames{written: make(chan struct{}, 1)}
		keys, typing := io.Pipe()
		viewed := &keyCounter{Model: m, seen: make(chan int, 1)}
		p := tea.NewProgram(viewed, programOptions(out, keys)...)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := p.Run(); err != nil {
				b.Error(err)
			}
		}()
		p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
		time.Sleep(200 * time.Millisecond) // the first frames drawn and written
		b.ResetTimer()
		from := selfCPU()
		question := classQuestion(0)
		for i := 0; i < b.N; i++ {
			key := question[i%len(question) : i%len(question)+1]
			if i%len(question) == 0 {
				key = "\x15" + key // ctrl+u: an empty input again, as a sent question leaves it
			}
			out.drain()
			if _, err := typing.Write([]byte(key)); err != nil {
				b.Fatal(err)
			}
			viewed.await(i + 1)
			out.await()
		}
		b.ReportMetric(float64((selfCPU()-from).Microseconds())/float64(b.N), "cpu-µs/key")
		b.StopTimer()
		p.Quit()
		typing.Close()
		<-done
	})
}

// asked is how many questions classScreen's shift has asked and had answered.
const asked = 6

// classScreen is a trainee's screen over a real offline shift, sized and drawn as ward serve
// draws it, with a few questions asked and answered.
func classScreen(b *testing.B) *ui.Model {
	b.Helper()
	lipgloss.SetColorProfile(termenv.ANSI256) // as New does for ward serve
	theme, err := themes.New("dark", false)
	if err != nil {
		b.Fatal(err)
	}
	r := sessiontest.New(b, func(cfg *session.Config) { // as ward serve --shift quiet-night starts t00's
		if err := cfg.Store.SignIn(persist.Person{Trainee: "t00"}, nil); err != nil {
			b.Fatal(err)
		}
		cfg.Shift = "quiet-night"
	})
	r.Turn("review patient_1")
	for i := range asked {
		r.Turn(classQuestion(i))
	}
	m := ui.New(live.NewLive(r.S, nil), ui.Options{Theme: theme.In(termenv.ANSI256), Trainee: "t00", TraineeFixed: true,
		Clipboard: io.Discard, Confined: true, SaveDir: b.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	settle(m, m.Init(), nil)
	if v := m.View(); !strings.Contains(v, classQuestion(asked-1)) {
		b.Fatalf("the screen does not show the shift's chat:\n%s", v)
	}
	return m
}

// ask sends the question typed in m with enter and plays its turn until m shows the reply.
func ask(b *testing.B, m *ui.Model, question string) {
	b.Helper()
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	mark := question[strings.LastIndexByte(question, ' ')+1:]
	settle(m, cmd, func() bool {
		v := m.View()
		return strings.Contains(v, mark) && !busy.MatchString(v[strings.LastIndexByte(v, '\n')+1:])
	})
}

// settle runs cmd and what the messages it returns start, feeding each message to m, until done
// says so (nil: until nothing new has come for a while); commands that wait longer (the periodic
// refresh, the strip's sweep) are left waiting.
func settle(m tea.Model, cmd tea.Cmd, done func() bool) {
	msgs := make(chan tea.Msg, 64)
	var start func(tea.Cmd)
	start = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			switch msg := cmd().(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					start(c)
				}
			case nil:
			default:
				select {
				case msgs <- msg:
				default: // the benchmark has moved on
				}
			}
		}()
	}
	start(cmd)
	quiet := 300 * time.Millisecond
	if done != nil {
		quiet = time.Millisecond
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		select {
		case msg := <-msgs:
			_, cmd := m.Update(msg)
			start(cmd)
		case <-time.After(quiet):
			if done == nil || done() {
				return
			}
		}
	}
	panic("the screen did not settle within a minute")
}

// questionKeys are text's characters as key messages, as a terminal sends them typed.
func questionKeys(text string) []tea.KeyMsg {
	keys := make([]tea.KeyMsg, len(text))
	for i, r := range text {
		keys[i] = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
		if r == ' ' {
			keys[i] = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{r}}
		}
	}
	return keys
}

// keyCounter is a screen that counts the keys it has drawn a frame after.
type keyCounter struct {
	tea.Model
	keys int
	seen chan int
}

func (k *keyCounter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		k.keys++
	}
	m, cmd := k.Model.Update(msg)
	k.Model = m
	return k, cmd
}

func (k *keyCounter) View() string {
	v := k.Model.View()
	select {
	case k.seen <- k.keys:
	default:
		select { // only the latest count matters
		case <-k.seen:
		default:
		}
		k.seen <- k.keys
	}
	return v
}

// await returns once a frame has been drawn after n keys.
func (k *keyCounter) await(n int) {
	for got := range k.seen {
		if got >= n {
			return
		}
	}
}

// frames is a terminal that only tells when something was written to it.
type frames struct{ written chan struct{} }

func (f *frames) Write(p []byte) (int, error) {
	select {
	case f.written <- struct{}{}:
	default:
	}
	return len(p), nil
}

// drain forgets what was written before now.
func (f *frames) drain() {
	select {
	case <-f.written:
	default:
	}
}

// await returns once something is written.
func (f *frames) await() { <-f.written }
