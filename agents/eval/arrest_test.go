package eval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// teamTurn is a turn in which one agent, given facts and hearing line, said reply.
func teamTurn(agent, facts, line, reply string, pulse bool, done ...string) PlayedTurn {
	out, _ := json.Marshal(map[string]any{"reply": reply, "entities_to_update": map[string]any{}, "derived_entities_to_update": map[string]any{}})
	call := llm.TraceRecord{Agent: agent, Messages: []memory.Message{
		{Role: "system", Content: "Engine facts: " + facts},
		{Role: "user", Content: line},
	}, Reply: memory.Message{Role: "assistant", Content: string(out)}}
	return PlayedTurn{Line: line, Calls: []llm.TraceRecord{call}, Pulse: pulse, Done: done}
}

func TestJudgeTeam(t *testing.T) {
	tests := []struct {
		name, line, reply string
		pulse             bool
		done              []string
		want              string
	}{
		{"confirms what was done", "shock 150 J", "Shock delivered. Back on the chest.", false, []string{"shock"}, ""},
		{"echoes the trainee's rhythm", "this is VF, shock", "VF, charging — stand clear.", false, []string{"shock"}, ""},
		{"names the rhythm", "rhythm check", "That's VF on the monitor.", false, nil, `names a rhythm ("VF")`},
		{"names asystole", "what do you see?", "Looks asystolic to me.", false, nil, "names a rhythm"},
		{"a pulse the engine lacks", "pulse check", "Yes! We've got a pulse.", false, []string{"pulse_check"}, "says the heart restarted"},
		{"ROSC with a pulse", "pulse check", "There's a pulse — ROSC.", true, []string{"pulse_check"}, ""},
		{"no pulse when there is one", "pulse check", "No pulse, back on the chest.", true, nil, "says there is no output"},
		{"a shock never given", "charge to 200", "Shock delivered at 200.", false, []string{"charge"}, "reports a shock"},
		{"a drug never given", "resume CPR", "Adrenaline is in.", false, []string{"cpr"}, "reports adrenaline given"},
		{"the drug given", "adrenaline 1 mg IV", "Adrenaline 1 mg given.", false, []string{"medication", "epinephrine"}, ""},
		{"an invented number", "what's the EtCO2?", "EtCO2 is 35.", false, nil, "quotes numbers no fact gives: 35"},
		{"a plan's list", "has he got a pulse?", "A plan:\n1. Monitor reads it.\n2. Preceptor coaches.", false, nil, ""},
	}
	for _, tt := range tests {
		turn := teamTurn("Nurse", `{"now":"T+02:00"}`, tt.line, tt.reply, tt.pulse, tt.done...)
		got := judgeTeam(turn, teamReplies(turn.Calls))
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: judged %q, want %q", tt.name, got, tt.want)
		}
	}
	if len(arrestScripts()) < 3 {
		t.Error("fewer than three arrest scripts")
	}
}
