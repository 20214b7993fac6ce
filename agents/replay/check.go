package replay

import (
	"errors"
	"fmt"

	"github.com/ward-sim/ward/agents/llm"
)

// ErrUnreplayable is wrapped by every reason a trace cannot be replayed.
var ErrUnreplayable = errors.New("cannot replay the trace")

// Setup is what this ward would replay with: its version and the digests of the definitions
// loaded for the replay.
type Setup struct {
	Version       string
	ScenariosHash string
	AgentsHash    string
	KnowledgeHash string
}

// Check says why runs cannot be replayed with setup, or nil when they can. A replay needs the
// trace's format, ward's version, the same scenarios and agents, and every shift a run resumes
// started earlier in the trace: a replay starts from an empty store.
func Check(runs []llm.TraceRun, setup Setup) error {
	if len(runs) == 0 {
		return fmt.Errorf("%w: it holds no run", ErrUnreplayable)
	}
	started := map[string]bool{}
	for i, run := range runs {
		if reason := unreplayable(run.Header, setup, started); reason != "" {
			return fmt.Errorf("%w: run %d %s", ErrUnreplayable, i+1, reason)
		}
		started[run.Header.SessionID] = true
	}
	return nil
}

func unreplayable(h llm.TraceHeader, setup Setup, started map[string]bool) string {
	switch {
	case h.Format != llm.TraceFormat:
		return fmt.Sprintf("is in trace format %d, and this ward reads format %d", h.Format, llm.TraceFormat)
	case h.Version != setup.Version:
		return fmt.Sprintf("was recorded by ward %s, and this is ward %s", h.Version, setup.Version)
	case h.ScenariosHash != setup.ScenariosHash:
		return fmt.Sprintf("used another scenario library (sha256 %.12s, this one %.12s) — pass the --scenarios DIR it was recorded with, or record it again",
			h.ScenariosHash, setup.ScenariosHash)
	case h.AgentsHash != setup.AgentsHash:
		return fmt.Sprintf("used other agent definitions (sha256 %.12s, these %.12s) — pass the --agents FILE it was recorded with, or record it again",
			h.AgentsHash, setup.AgentsHash)
	case h.KnowledgeHash != setup.KnowledgeHash:
		return fmt.Sprintf("answered from other protocol cards (sha256 %.12s, these %.12s) — pass the --knowledge DIR it was recorded with, or record it again",
			h.KnowledgeHash, setup.KnowledgeHash)
	case h.EmbedModel != "":
		return fmt.Sprintf("ranked the protocol cards with the embedding model %s, which a replay does not ask — record with full-text search only (no --embed-model)", h.EmbedModel)
	case h.Resumed && !started[h.SessionID]:
		return fmt.Sprintf("resumes shift %s, which the trace does not start — record from a new shift (--new or --shift)", h.SessionID)
	}
	return ""
}
