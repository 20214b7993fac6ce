package replay

import (
	"errors"
	"fmt"

	"github.com/ward-sim/ward/agents/llm"
)

// ErrUnreplayable is wrapped by every reason a trace cannot be replayed.
var ErrUnreplayable = errors.New("cannot replay the trace")

// Setup is what this ward would replay with: the digests of the definitions loaded for the
// replay.
type Setup struct {
	ScenariosHash string
	AgentsHash    string
	KnowledgeHash string
}

// Check says why runs cannot be replayed with setup, or nil when they can. A replay needs the
// trace's format, the same scenarios, agents and cards, and every shift a run resumes started
// earlier in the trace: a replay starts from an empty store. Ward's version is not compared
// (see VersionNotes): what ward sends follows from the code and these definitions, and a
// changed prompt shows as a divergence, which is what a replay is for.
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
	case h.ScenariosHash != setup.ScenariosHash:
		return fmt.Sprintf("used another scenario library (sha256 %.12s, this one %.12s) — pass the --scenarios DIR it was recorded with, or record it again",
			h.ScenariosHash, setup.ScenariosHash)
	case h.AgentsHash != setup.AgentsHash:
		return fmt.Sprintf("used other agent definitions (sha256 %.12s, these %.12s) — pass the --agents FILE it was recorded with, or record it again",
			h.AgentsHash, setup.AgentsHash)
	case h.KnowledgeHash != setup.KnowledgeHash:
		return fmt.Sprintf("answered from other protocol cards (sha256 %.12s, these %.12s) — pass the --knowledge DIR it was recorded with, or record it again",
			h.KnowledgeHash, setup.KnowledgeHash)
	case h.Resumed && !started[h.SessionID]:
		return fmt.Sprintf("resumes shift %s, which the trace does not start — record from a new shift (--new or --shift)", h.SessionID)
	}
	return ""
}

// VersionNotes names each ward version in runs other than version, the one replaying them. A
// version is a note, not a refusal: it changes with every commit and with how ward was built (a
// build without version control says "(devel)", a clone's build a pseudo-version), so refusing
// it would turn away identical prompts for where the binary came from.
func VersionNotes(runs []llm.TraceRun, version string) []string {
	var notes []string
	seen := map[string]bool{version: true}
	for _, run := range runs {
		if recorded := run.Header.Version; !seen[recorded] {
			seen[recorded] = true
			notes = append(notes, fmt.Sprintf("note: trace recorded by ward %s, replaying with ward %s", recorded, version))
		}
	}
	return notes
}
