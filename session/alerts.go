package session

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Alarms and escalations reach the trainee three ways: as ward run's alarm and escalation events
// (the engine's own), as a message in that patient's chat (the nurse's call or the monitor's
// alarm, where the trainee reads it on going to them), and on the roster and the status bar,
// drawn from the roster summary, which the registry keeps across a restart.

// tellAlerts tells each new alarm and escalation as a message in its patient's chat, kept for the
// turn's next commit, which writes it with the sim state that raised it, so a crash cannot keep
// one without the other (and the engine, stepped again from its stored state, raises it again). An
// alert raised and repeated within the same stretch of time (a long /wait) is told as it last
// sounded, with the numbers then; a repeat of one told before sounds again (the event, the
// bell) but adds nothing to the chat.
func (s *Session) tellAlerts(t *turn, events []physio.Event) {
	type key struct {
		patient, kind string
		raised        float64
	}
	var msgs []told
	at := map[key]int{}
	for _, ev := range events {
		if ev.Kind != physio.EventAlarm && ev.Kind != physio.EventEscalation {
			continue
		}
		k := key{ev.PatientID, ev.Alert.Kind, ev.Alert.Raised}
		if i, ok := at[k]; ok {
			msgs[i].msg.Content, msgs[i].msg.Sim = ev.Alert.Text, ev.Alert.T
			continue
		}
		if ev.Alert.Repeats > 0 {
			continue
		}
		agent := nurseAgent
		if ev.Kind == physio.EventAlarm {
			agent = agents.AgentMonitor
		}
		msg := s.message(memory.RoleAssistant, agent, ev.Alert.Text)
		msg.Sim = ev.Alert.T
		at[k] = len(msgs)
		msgs = append(msgs, told{ev.PatientID, msg})
	}
	for _, m := range msgs {
		t.emit(MessageEvent{PatientID: m.patient, Role: m.msg.Role, Agent: m.msg.Agent, Text: m.msg.Content, At: m.msg.At})
	}
	t.told = append(t.told, msgs...)
}

// told is a message for a patient's chat that the turn's next commit stores: an alarm or
// escalation.
type told struct {
	patient string
	msg     memory.Message
}

// PatientAlert is an alarm or escalation waiting on a patient, as the status bar and the jump
// key use it.
type PatientAlert struct {
	PatientID string
	Level     string  // physio.LevelUrgent, LevelAlarm or LevelEmergency
	Text      string  // what the monitor or nurse said
	Raised    float64 // sim seconds
}

// Waiting lists every patient's waiting alert, the most urgent first, then the oldest: from the
// registry, so it wakes no patient.
func (s *Session) Waiting() []PatientAlert {
	var out []PatientAlert
	for _, p := range s.Summaries() {
		if p.Alert != "" {
			out = append(out, PatientAlert{PatientID: p.ID, Level: p.Alert, Text: p.AlertText, Raised: p.AlertAt})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := physio.Rank(out[i].Level), physio.Rank(out[j].Level); a != b {
			return a > b
		}
		return out[i].Raised < out[j].Raised
	})
	return out
}

// cmdAck acknowledges the alarms and escalations waiting on a patient: the one named, or the
// active one. An alert closes once the patient has also been reviewed.
func (s *Session) cmdAck(_ context.Context, t *turn, arg string) {
	id, rest := s.patientArg(arg)
	if rest != "" || id == "" {
		t.emit(ErrorEvent{Code: "USAGE", Message: "usage: /ack [ID] — acknowledges the alarms waiting on a patient (the active one by default)"})
		return
	}
	e := s.engine(t, id)
	if e == nil {
		t.emit(ErrorEvent{Code: "NO_PATIENT", Message: "no patient " + id + " on the roster"})
		return
	}
	waiting, _ := e.Waiting()
	n := e.Acknowledge()
	s.sim.dirty[id] = true
	s.reg.noteSummary(id, summaryOf(e))
	s.record(t, nil, nil)
	switch {
	case n == 0:
		s.say(t, "Nothing is waiting on "+id+".")
	case waiting.Reviewed == nil:
		s.say(t, fmt.Sprintf("Acknowledged on %s: %s Review the patient to close it.", id, waiting.Text))
	default:
		s.say(t, fmt.Sprintf("Acknowledged on %s: %s", id, waiting.Text))
	}
}

// cmdAlarms shows a patient's alarm limits, or changes them: "/alarms patient_2 spo2<88".
func (s *Session) cmdAlarms(_ context.Context, t *turn, arg string) {
	id, rest := s.patientArg(arg)
	usage := "usage: /alarms [ID] [LIMIT…], a limit as spo2<88 or hr>140"
	if id == "" {
		t.emit(ErrorEvent{Code: "USAGE", Message: usage})
		return
	}
	var limits []sc.AlarmLimit
	for _, f := range strings.Fields(rest) {
		l, err := sc.ParseAlarmLimit(f)
		if err != nil {
			t.emit(ErrorEvent{Code: "USAGE", Message: err.Error() + " — " + usage})
			return
		}
		limits = append(limits, l)
	}
	e := s.engine(t, id)
	if e == nil {
		t.emit(ErrorEvent{Code: "NO_PATIENT", Message: "no patient " + id + " on the roster"})
		return
	}
	for _, l := range limits {
		e.SetAlarmLimit(l)
	}
	if len(limits) > 0 {
		s.sim.dirty[id] = true
		s.record(t, nil, nil)
	}
	var parts []string
	for _, l := range e.AlarmLimits() {
		parts = append(parts, l.String())
	}
	how := "observed by a nurse; these apply once a monitor is attached"
	if e.Monitored() {
		how = "on the monitor"
	}
	s.say(t, fmt.Sprintf("%s alarm limits (%s): %s", id, how, strings.Join(parts, " ")))
}

// patientArg splits a command's argument into the patient it names first, if it names one, and
// the rest; with no patient named, it is the active patient.
func (s *Session) patientArg(arg string) (id, rest string) {
	first, after, _ := strings.Cut(strings.TrimSpace(arg), " ")
	if norm, ok := analyzer.NormalizeID(first, s.cfg.Pattern); ok {
		return norm, strings.TrimSpace(after)
	}
	return s.active, strings.TrimSpace(arg)
}
