package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// AgentDiagnosis names the second-opinion call in traces.
const AgentDiagnosis = "diagnosis_check"

// DiagnosisVerdicts are the verdicts a second opinion may give, as the scenario's rules name them.
var DiagnosisVerdicts = []string{"accepted", "differential", "wrong"}

// secondOpinionSchema bounds the model's answer so even a weak model's output ends.
var secondOpinionSchema = llm.Schema(map[string]any{
	"type": "object",
	"properties": map[string]any{
		"verdict": map[string]any{"type": "string", "enum": DiagnosisVerdicts},
		"reason":  map[string]any{"type": "string", "maxLength": llm.MaxReasoningLen},
	},
	"required":             []string{"verdict", "reason"},
	"additionalProperties": false,
})

// secondOpinionTimeout bounds the call: the trainee waits for the command's answer.
const secondOpinionTimeout = 20 * time.Second

// maxDiagnosisLen is how much of what the trainee typed the model reads.
const maxDiagnosisLen = 300

// SecondOpinion asks a model whether the trainee's working diagnosis names the case's diagnosis
// (accepted), one of its differentials, or neither. The rules decide the score; this verdict is
// only recorded beside theirs, for the educator to see where the rules may have been too strict.
func SecondOpinion(ctx context.Context, b llm.Backend, accepted, differentials []string, said string) (verdict, reason string, err error) {
	ctx, cancel := llm.WithTimeout(ctx, secondOpinionTimeout)
	defer cancel()
	prompt := "You check a trainee's working diagnosis in a clinical simulation against the case's key.\n" +
		"The case's diagnosis, with its synonyms: " + strings.Join(accepted, "; ") + ".\n" +
		"Reasonable differentials that are not this case: " + strings.Join(differentials, "; ") + ".\n" +
		`Answer with one JSON object {"verdict": ..., "reason": ...}: "accepted" when the trainee's words name the case's diagnosis ` +
		`(however spelt or abbreviated), "differential" when they name one of the differentials, otherwise "wrong".`
	resp, err := b.Chat(ctx, llm.Request{
		Agent: AgentDiagnosis,
		Messages: []memory.Message{
			{Role: memory.RoleSystem, Content: prompt},
			{Role: memory.RoleUser, Content: llm.Clip(said, maxDiagnosisLen)},
		},
		Format:    secondOpinionSchema,
		Options:   llm.Options{Temperature: llm.Zero(), NumPredict: 256, NumCtx: llm.DefaultNumCtx},
		KeepAlive: llm.DefaultKeepAlive,
	}, nil)
	if err != nil {
		return "", "", err
	}
	var out struct{ Verdict, Reason string }
	if err := json.Unmarshal([]byte(resp.Message.Content), &out); err != nil {
		return "", "", fmt.Errorf("the second opinion is not JSON: %w", err)
	}
	if !slices.Contains(DiagnosisVerdicts, out.Verdict) {
		return "", "", errors.New("the second opinion's verdict is not one of " + strings.Join(DiagnosisVerdicts, ", "))
	}
	return out.Verdict, out.Reason, nil
}
