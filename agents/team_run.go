package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/ward-sim/ward/memory"
)

// Speaker gives the team its voices. Speak makes agent a answer in this turn, routed to it for
// route's reason, and returns the reply's words; Hear takes the gate and guard notes as the turn
// goes. The session implements it: it builds the agent's prompt, calls the backend and keeps the
// reply.
type Speaker interface {
	Speak(ctx context.Context, a Agent, route Route) (string, error)
	Hear(TeamEvent)
}

// Kinds of TeamEvent.
const (
	EventGate = "gate" // Gate is GateWaiting or GateLifted
	EventNote = "note" // a guard stopped the turn; Stop and Text say which and why
)

// Why a turn ended, in Outcome.End and, for the guards, TeamEvent.Stop.
const (
	EndQuestion = "question"  // an agent asked the trainee something
	EndPlanDone = "plan_done" // the confirmed plan's last step has spoken
	EndDone     = "done"      // the one routed agent answered
	EndGate     = "gate"      // the Orchestrator proposed a plan and waits for confirmation
	EndCap      = "cap"       // MaxMessages agent messages were spoken
	EndLoop     = "loop"      // two agents kept handing the turn to each other
)

// TeamEvent is a gate or guard note Run reports as the turn goes.
type TeamEvent struct {
	Kind string
	Gate string // gate
	Stop string // note: EndCap | EndLoop
	Text string // note: the line to show the trainee
}

// Outcome is how a turn ended and how many agent messages it took.
type Outcome struct {
	Messages int
	End      string
}

// Run plays one trainee turn. prior is the conversation before the trainee's text; the gate and
// the handoff rule read it. Speak is called once per agent message.
//
// Run owns routing, the confirmation gate, termination, the message cap and the loop guard. It
// stores nothing: the gate is read from prior, and the turn's own state lives only until Run
// returns.
func (t *Team) Run(ctx context.Context, prior []memory.Message, text string, s Speaker) (Outcome, error) {
	state := &teamTurn{team: t, hear: s.Hear}
	next := state.open(ctx, prior, text)
	for {
		if err := ctx.Err(); err != nil {
			return state.outcome(""), err
		}
		if state.spoken >= t.MaxMessages {
			state.stop(EndCap, fmt.Sprintf("Stopped after %d agent messages this turn. Tell the team how to continue.", state.spoken))
			return state.outcome(EndCap), nil
		}
		a, _ := t.Agent(next.Agent) // routes only ever name team agents
		next.Agent = a.Name
		reply, err := s.Speak(ctx, a, next)
		if err != nil {
			return state.outcome(""), err
		}
		state.said(a.Name)
		var end string
		if next, end = state.after(a.Name, reply); end != "" {
			return state.outcome(end), nil
		}
	}
}

// teamTurn is the state of one Run: the confirmed plan and how far it got,
// the messages spoken, and the handoffs made, for the loop guard.
type teamTurn struct {
	team     *Team
	hear     func(TeamEvent)
	plan     []string
	step     int // index in plan of the next step to run
	spoken   int
	handoffs [][2]string // (from, to) in order
}

// open routes the trainee's message. A confirmation of a waiting plan lifts
// the gate and starts the plan; anything else is a new instruction, routed
// as usual, and the unconfirmed plan is dropped.
func (r *teamTurn) open(ctx context.Context, history []memory.Message, text string) Route {
	if gate := r.team.GateOf(history); gate.Waiting && IsConfirmation(text) {
		r.hear(TeamEvent{Kind: EventGate, Gate: GateLifted})
		r.plan = gate.Plan
		return Route{Agent: r.plan[0], Source: RouteRule, Reasoning: "step 1 of the confirmed plan"}
	}
	return r.team.Route(ctx, history, text)
}

// said counts a message, and ticks off the plan's next step when its agent
// spoke, whether the plan or a handoff brought it in.
func (r *teamTurn) said(agent string) {
	r.spoken++
	if r.step < len(r.plan) && r.plan[r.step] == agent {
		r.step++
	}
}

// after decides what follows speaker's reply: the next route, or why the
// turn ends. A handoff always continues (unless it loops); a plan from the
// Orchestrator holds the gate; a question to the trainee ends the turn; a
// confirmed plan runs to its last step; otherwise the one answer is the turn.
func (r *teamTurn) after(speaker, reply string) (Route, string) {
	if isSnapshotText(reply) {
		// A snapshot settles nothing, so it never ends the turn.
		return r.continuePlan("a context snapshot is not an answer"), ""
	}
	if to, ok := r.team.handoff(reply, speaker); ok {
		if r.loops(speaker, to) {
			r.stop(EndLoop, fmt.Sprintf("%s and %s kept handing the turn back to each other, so it stopped here. Say who should continue.", to, speaker))
			return Route{}, EndLoop
		}
		r.handoffs = append(r.handoffs, [2]string{speaker, to})
		return Route{Agent: to, Source: RouteHandoff, Reasoning: speaker + " handed back to " + to}, ""
	}
	if strings.EqualFold(speaker, AgentOrchestrator) && r.team.PlanIn(reply) != nil {
		r.hear(TeamEvent{Kind: EventGate, Gate: GateWaiting})
		return Route{}, EndGate
	}
	if asksQuestion(reply) {
		return Route{}, EndQuestion
	}
	if r.step < len(r.plan) {
		return r.continuePlan(""), ""
	}
	if r.plan != nil {
		return Route{}, EndPlanDone
	}
	return Route{}, EndDone
}

// continuePlan routes to the plan's next step, or lets the Orchestrator
// facilitate when no step is left.
func (r *teamTurn) continuePlan(why string) Route {
	if r.step < len(r.plan) {
		return Route{Agent: r.plan[r.step], Source: RouteRule, Reasoning: fmt.Sprintf("step %d of the confirmed plan", r.step+1)}
	}
	return Route{Agent: AgentOrchestrator, Source: RouteRule, Reasoning: why}
}

// loops reports whether handing from → to would repeat the pattern of the
// last two handoffs (from → to, then to → from): the pair is bouncing the
// turn between them, and the next answer would only restart the bounce.
func (r *teamTurn) loops(from, to string) bool {
	n := len(r.handoffs)
	return n >= 2 && r.handoffs[n-2] == [2]string{from, to} && r.handoffs[n-1] == [2]string{to, from}
}

func (r *teamTurn) stop(reason, text string) {
	r.hear(TeamEvent{Kind: EventNote, Stop: reason, Text: text})
}

func (r *teamTurn) outcome(end string) Outcome {
	return Outcome{Messages: r.spoken, End: end}
}

// snapshotPrefix marks the session's ephemeral context message. An agent
// that echoes it has not answered anything.
const snapshotPrefix = "patient_context_json"

func isSnapshotText(reply string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(reply)), snapshotPrefix)
}

// asksQuestion reports whether the reply ends by asking the trainee
// something: its last line ends with a question mark, once closing quotes
// and markdown emphasis are set aside.
func asksQuestion(reply string) bool {
	text := strings.TrimRight(reply, " \t\r\n*_\"'”’)")
	return strings.HasSuffix(text, "?")
}
