package session

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/records"
)

// Command describes one slash command. The one table of them serves `/help`, the screen's
// palette and its dispatch, and the session's dispatch (`ward run`, and whatever a screen sends).
type Command struct {
	Name string // with the slash
	Args string
	Help string
	// Screen marks a command a screen answers itself (its inspector, its export); the session
	// answers it only where there is no screen, in `ward run`.
	Screen bool
	run    func(s *Session, ctx context.Context, t *turn, arg string)
}

// The names of the commands that code sends or answers by name; commandTable is the one list of
// them all.
const (
	CmdAck     = "/ack"
	CmdAdmit   = "/admit"
	CmdClear   = "/clear"
	CmdExport  = "/export"
	CmdInspect = "/inspect"
	CmdPrefs   = "/prefs"
	CmdSwitch  = "/switch"
)

// Commands lists the slash commands in the order help shows them.
func Commands() []Command { return commandTable }

var commandTable []Command

func init() {
	commandTable = []Command{
		{Name: "/help", Help: "list the commands", run: (*Session).cmdHelp},
		{Name: "/patients", Help: "show the roster and who is active", run: (*Session).cmdPatients},
		{Name: CmdSwitch, Args: "ID", Help: "make a patient active (a new ID admits them)", run: (*Session).cmdSwitch},
		{Name: CmdAdmit, Args: "ID [N|SCENARIO]", Help: "admit a patient, with case N of /scenarios, a scenario, or one picked for them", run: (*Session).cmdAdmit},
		{Name: "/scenarios", Help: "list the scenarios", run: (*Session).cmdScenarios},
		{Name: "/vitals", Help: "check the active patient's vitals; the Monitor reads them", run: (*Session).cmdVitals},
		{Name: "/wait", Args: "DURATION", Help: "let sim time pass for every patient (30s, 5m)", run: (*Session).cmdWait},
		{Name: "/pause", Help: "stop or restart the sim clock (TUI)", run: (*Session).cmdPause},
		{Name: "/speed", Args: "N", Help: "run the sim clock N times real time, 1–10 (TUI)", run: (*Session).cmdSpeed},
		{Name: CmdAck, Args: "[ID]", Help: "acknowledge the alarms waiting on a patient (the active one by default)", run: (*Session).cmdAck},
		{Name: "/alarms", Args: "[ID] [LIMIT…]", Help: "show or set a patient's alarm limits, e.g. /alarms patient_2 spo2<88", run: (*Session).cmdAlarms},
		{Name: "/diagnosis", Args: "TEXT", Help: "commit to a working diagnosis for the active patient, or a ranked differential (PE, pneumonia): the right one scores by its place (revise it any time)", run: (*Session).cmdDiagnosis},
		{Name: "/dispo", Args: "PLACE", Help: "send the active patient to resus|icu|hdu|ward|cath-lab|theatre|home: ends their case", run: (*Session).cmdDispo},
		{Name: "/aar", Help: "After Action Review of the active patient; the Preceptor debriefs", run: (*Session).cmdAAR},
		{Name: agents.AskCommand, Args: "QUESTION", Help: "ask the Preceptor what the protocols say; the answer cites its sources", run: (*Session).cmdAsk},
		{Name: "/note", Help: "draft a SOAP note from this session (DRAFT, for review)", run: (*Session).cmdNote},
		{Name: "/handoff", Args: "[sbar|ipass|mist]", Help: "draft a handoff from this session (DRAFT, for review)", run: (*Session).cmdHandoff},
		{Name: CmdInspect, Help: "show how the last turn's prompts were built", Screen: true, run: (*Session).cmdInspect},
		{Name: CmdExport, Args: "[FILE] [--force]", Help: "write this chat as markdown, with times and speakers, to FILE (a new one unless forced) or ward-PATIENT-TIME.md", Screen: true, run: (*Session).cmdExport},
		{Name: "/progress", Help: "your shifts so far: scores, critical errors, time to critical actions", run: (*Session).cmdProgress},
		{Name: CmdPrefs, Args: "[NAME VALUE]", Help: "show your preferences, or set one (handoff, theme, speed, window, model)", run: (*Session).cmdPrefs},
		{Name: CmdClear, Help: "archive the whole shift and start with no patient", run: (*Session).cmdClear},
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

// cmdExport answers where there is no screen to write the chat from.
func (s *Session) cmdExport(_ context.Context, t *turn, _ string) {
	t.emit(ErrorEvent{Code: "USAGE", Message: CmdExport + " writes the chat from the screen; here, `ward export` writes the shift's"})
}

// say shows a message from ward itself. It is not stored: it reports state the store already holds.
func (s *Session) say(t *turn, text string) {
	t.emit(MessageEvent{PatientID: s.active, Role: "assistant", Agent: memory.SystemAgent, Text: text})
}

func (s *Session) cmdHelp(_ context.Context, t *turn, _ string) {
	s.say(t, HelpTable())
}

// HelpTable is the commands as a markdown table, a row each: what /help shows (a table, so
// the chat keeps its columns) and what docs/reference.md lists.
func HelpTable() string {
	cell := strings.NewReplacer("|", `\|`).Replace
	var b strings.Builder
	b.WriteString("| command | does |\n| --- | --- |\n")
	for _, c := range commandTable {
		fmt.Fprintf(&b, "| `%s` | %s |\n", cell(strings.TrimSpace(c.Name+" "+c.Args)), cell(c.Help))
	}
	return strings.TrimRight(b.String(), "\n")
}

func (s *Session) cmdPatients(_ context.Context, t *turn, _ string) {
	s.say(t, s.reg.rosterAnswer(s.active))
}

func (s *Session) cmdClear(_ context.Context, t *turn, _ string) {
	s.clear(t, s.typed(t), analyzer.Decision{Action: analyzer.ActionClear, Source: analyzer.SourceRules, Reasoning: "/clear command"})
}

// cmdSwitch goes through the same registry logic as a typed switch, with no analyzer call.
func (s *Session) cmdSwitch(_ context.Context, t *turn, arg string) {
	if arg == "" {
		t.emit(ErrorEvent{Code: "USAGE", Message: "usage: /switch ID"})
		return
	}
	s.switchTo(t, s.typed(t), arg, analyzer.ActionSwitchExisting, "/switch command", "")
}

func (s *Session) cmdAdmit(_ context.Context, t *turn, arg string) {
	fields := strings.Fields(arg)
	if len(fields) == 0 || len(fields) > 2 {
		t.emit(ErrorEvent{Code: "USAGE", Message: "usage: /admit ID [N|SCENARIO] — /scenarios numbers the cases"})
		return
	}
	id, ok := analyzer.NormalizeID(fields[0], s.cfg.Pattern)
	if !ok {
		t.emit(ErrorEvent{Code: string(DecisionNeedsPatientID), Message: s.reg.needsIDMessage()})
		return
	}
	if _, known := s.reg.Patients[id]; known {
		t.emit(ErrorEvent{Code: "ALREADY_ADMITTED", Message: id + " is already on the roster — /switch " + id + " to attend them"})
		return
	}
	scenario := ""
	if len(fields) == 2 {
		scenario = fields[1]
	}
	typed := s.typed(t)
	typed.msg.Content = CmdAdmit + " " + id // the case it names, if any, is not the trainee's to read back
	s.switchTo(t, typed, id, analyzer.ActionActivateNew, "/admit command", scenario)
}

// cmdScenarios numbers the scenarios and gives each by its presentation, as a triage list
// would: a scenario's id and title name the diagnosis, which the trainee is there to find, so
// /admit takes the number (`ward scenarios list` shows ids and titles). Each says how hard it is,
// and whether a patient of the shift has it already (no two may).
func (s *Session) cmdScenarios(_ context.Context, t *turn, _ string) {
	var b strings.Builder
	taken := s.reg.onRoster(factScenario)
	for i, sc := range s.cfg.Scenarios.List() {
		fmt.Fprintf(&b, "%2d  %s", i+1, sc.Presentation)
		if sc.Difficulty != "" {
			b.WriteString(" · " + sc.Difficulty)
		}
		if taken[sc.ID] {
			b.WriteString(" · on the roster")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n/admit ID N admits a patient with case N.")
	s.say(t, strings.TrimRight(b.String(), "\n"))
}

// activeEngine is the engine of the active patient, or an error event saying there is none.
func (s *Session) activeEngine(t *turn) *physio.Engine {
	if e := s.engine(t, s.active); e != nil {
		return e
	}
	t.emit(ErrorEvent{Code: "NO_PATIENT", Message: "no patient is active — type 'review patient_1' or /switch ID first"})
	return nil
}

// cmdVitals checks vitals through the engine, then lets the Monitor read them out.
func (s *Session) cmdVitals(ctx context.Context, t *turn, _ string) {
	switch e := s.activeEngine(t); {
	case e != nil && e.Closed():
		s.caseRefused(t, e, physio.ErrClosed)
	case e != nil:
		s.agentCommand(ctx, t, effectVitals)
	}
}

func (s *Session) cmdAAR(ctx context.Context, t *turn, _ string) {
	if s.activeEngine(t) != nil {
		s.agentCommand(ctx, t, effectAAR)
	}
}

// cmdAsk puts a protocol question to the Preceptor, who answers from the protocol cards. It
// needs no patient: the question is about the guidance.
func (s *Session) cmdAsk(ctx context.Context, t *turn, question string) {
	if question == "" {
		t.emit(ErrorEvent{Code: "USAGE", Message: "usage: /ask QUESTION — e.g. /ask what is the adult IM dose of adrenaline in anaphylaxis?"})
		return
	}
	s.agentCommand(ctx, t, effectAsk)
}

// Effects a slash command has in the engine before its agent answers.
const (
	effectVitals = "vitals"
	effectAAR    = "aar"
	effectAsk    = "ask" // none: a question about the guidance does nothing at the bedside
)

// agentCommand keeps the typed command for the patient's history (hold), applies its effect in the
// engine, and lets the team answer it like any other turn.
func (s *Session) agentCommand(ctx context.Context, t *turn, effect string) {
	typed := s.typed(t)
	t.hold(typed)
	if effect == effectAAR {
		e := s.engine(t, s.active)
		t.emit(AAREvent{s.review(e)})
	}
	s.respond(ctx, t, settled{prior: s.chat.priorTo(typed, s.active), effect: effect})
}

// typed is the line as typed, for the active conversation, at the sim time it was typed, with who
// said it in a team.
func (s *Session) typed(t *turn) *typedText {
	msg := s.message(memory.RoleUser, "", t.input)
	msg.Sim = s.sim.ward.Clock()
	msg.By, msg.TeamRole, msg.For = t.by.Name, t.by.Role, t.orderFor
	return &typedText{msg: msg, to: s.active}
}

// cmdWait lets time pass for every patient on the ward.
func (s *Session) cmdWait(_ context.Context, t *turn, arg string) {
	d, err := parseSimDuration(arg)
	if err != nil {
		t.emit(ErrorEvent{Code: "USAGE", Message: "usage: /wait DURATION, e.g. /wait 30s or /wait 5m (" + err.Error() + ")"})
		return
	}
	s.advance(t, d.Seconds())
	s.record(t, nil, nil)
	s.say(t, fmt.Sprintf("%s passed; sim clock %s.", physio.SimTime(d.Seconds()), physio.SimTime(s.sim.ward.Clock())))
}

// maxWait bounds one /wait, so a typo cannot run a shift for days.
const maxWait = 2 * time.Hour

func parseSimDuration(arg string) (time.Duration, error) {
	d, err := time.ParseDuration(arg)
	if err != nil {
		secs, convErr := strconv.Atoi(arg)
		if convErr != nil {
			return 0, fmt.Errorf("%q is not a duration", arg)
		}
		d = time.Duration(secs) * time.Second
	}
	if d <= 0 || d > maxWait {
		return 0, fmt.Errorf("between 1s and %s", maxWait)
	}
	return d, nil
}

func (s *Session) cmdPause(_ context.Context, t *turn, _ string) {
	s.paused = !s.paused
	state := "running"
	if s.paused {
		state = "paused"
	}
	s.say(t, "Sim clock "+state+".")
}

func (s *Session) cmdSpeed(_ context.Context, t *turn, arg string) {
	n, err := strconv.ParseFloat(arg, 64)
	if err != nil || n < 1 || n > 10 {
		t.emit(ErrorEvent{Code: "USAGE", Message: "usage: /speed N, with N from 1 to 10"})
		return
	}
	s.speed = n
	s.say(t, fmt.Sprintf("Sim clock at ×%g.", n))
}

func (s *Session) cmdNote(_ context.Context, t *turn, _ string) {
	if e := s.activeEngine(t); e != nil {
		s.draft(t, soapNote(e, s.sim.memory(s.active)))
	}
}

func (s *Session) cmdHandoff(_ context.Context, t *turn, arg string) {
	e := s.activeEngine(t)
	if e == nil {
		return
	}
	format := strings.ToLower(arg)
	if format == "" {
		format = s.prefs.Handoff
	}
	text, err := handoff(format, e, s.sim.memory(s.active))
	if err != nil {
		t.emit(ErrorEvent{Code: "USAGE", Message: err.Error()})
		return
	}
	s.draft(t, text)
}

// draft stores a note or handoff with the patient's history, as the Orchestrator's, so it is
// part of the record the trainee reviews.
func (s *Session) draft(t *turn, text string) {
	t.hold(s.typed(t))
	msg := s.message(memory.RoleAssistant, agents.AgentOrchestrator, text)
	t.emit(MessageEvent{PatientID: s.active, Role: msg.Role, Agent: msg.Agent, Text: text, At: msg.At})
	s.record(t, []memory.Message{msg}, nil)
}

// cmdProgress shows the trainee's progress across their shifts, this one included, as `ward
// progress` prints it.
func (s *Session) cmdProgress(_ context.Context, t *turn, _ string) {
	if err := s.Flush(); err != nil { // this shift's engines, as they are now
		t.emit(ErrorEvent{Code: CodeNotSaved, Message: "could not save the shift before reading it: " + err.Error()})
		return
	}
	p, err := records.ReadProgress(s.cfg.Store, s.cfg.Scenarios)
	if err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not read the progress: " + err.Error()})
		return
	}
	p.Open = s.info.ID
	p.Offer(s.cfg.Scenarios) // again, without this shift's cases, which the trainee is still discovering
	var b strings.Builder
	_ = p.Table(&b)
	s.say(t, "```text\n"+b.String()+"```")
}
