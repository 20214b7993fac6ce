package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/ward-sim/ward/agents"
)

// systemAgent names replies that come from ward itself rather than from a model.
const systemAgent = "ward"

// Command describes one slash command; the same table serves `/help`, the TUI's palette and
// `ward run`.
type Command struct {
	Name string // with the slash
	Args string
	Help string
	run  func(s *Session, ctx context.Context, t *turn, arg string)
}

// Commands lists the slash commands in the order help shows them.
func Commands() []Command { return commandTable }

var commandTable []Command

func init() {
	commandTable = []Command{
		{Name: "/help", Help: "list the commands", run: (*Session).cmdHelp},
		{Name: "/patients", Help: "show the roster and who is active", run: (*Session).cmdPatients},
		{Name: "/switch", Args: "ID", Help: "make a patient active (a new ID admits them)", run: (*Session).cmdSwitch},
		{Name: "/clear", Help: "archive the whole shift and start with no patient", run: (*Session).cmdClear},
	}
}

// command runs a slash command line. Unknown commands get an error that points at /help.
func (s *Session) command(ctx context.Context, t *turn, line string) {
	name, arg, _ := strings.Cut(line, " ")
	for _, c := range commandTable {
		if strings.EqualFold(c.Name, name) {
			c.run(s, ctx, t, strings.TrimSpace(arg))
			return
		}
	}
	t.emit(ErrorEvent{Code: "UNKNOWN_COMMAND", Message: fmt.Sprintf("unknown command %s — type /help for the list", name)})
}

func (s *Session) say(t *turn, text string) {
	t.emit(MessageEvent{PatientID: s.active, Role: "assistant", Agent: systemAgent, Text: text})
}

func (s *Session) cmdHelp(_ context.Context, t *turn, _ string) {
	var b strings.Builder
	for _, c := range commandTable {
		fmt.Fprintf(&b, "%-10s %-8s %s\n", c.Name, c.Args, c.Help)
	}
	s.say(t, strings.TrimRight(b.String(), "\n"))
}

func (s *Session) cmdPatients(_ context.Context, t *turn, _ string) {
	s.say(t, rosterAnswer(s.active, s.roster))
}

func (s *Session) cmdClear(_ context.Context, t *turn, _ string) {
	s.clear(t, agents.Decision{Action: agents.ActionClear, Source: "rules", Reasoning: "/clear command"})
}

// cmdSwitch goes through the same registry logic as a typed switch, with no analyzer call.
func (s *Session) cmdSwitch(_ context.Context, t *turn, arg string) {
	s.switchTo(t, arg, "/switch command")
}
