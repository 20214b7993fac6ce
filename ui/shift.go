package ui

import (
	"context"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/records"
)

// Shift is all the UI needs from the shift it shows (live.Live). The UI calls it only
// from tea.Cmds, never from Update, so an implementation must be safe for
// concurrent use.
type Shift interface {
	// Snapshot returns what to draw now. The UI calls it after turn events
	// and once a second, so it must be cheap: no LLM call, ideally no disk.
	Snapshot() live.ViewState

	// Submit runs one turn for text; a line starting with "/" is a slash
	// command. It returns at once; events follow on the channel, which the
	// engine closes when the turn is over. Cancelling ctx stops generation,
	// and the engine still persists what it has before closing the channel.
	Submit(ctx context.Context, text string) <-chan live.Update

	// Retry runs the last turn again, without storing the user's text twice.
	Retry(ctx context.Context) <-chan live.Update

	// Switch makes patientID the active patient through the registry, as a
	// typed switch would: a SWITCH_EXISTING decision is recorded and the
	// snapshot rebuilt. It makes no analyzer call.
	Switch(ctx context.Context, patientID string) error

	// LoadOlder adds the page of messages before the oldest one the snapshot's Chat holds, when
	// ChatMore says there is one; the next Snapshot shows it.
	LoadOlder(ctx context.Context) error

	// Start begins a new session: a built-in shift's ID, a shift file, or ""
	// for an empty roster, for the trainee named.
	Start(ctx context.Context, shift, trainee string) error

	// ClearPreview says what a clear would archive now, for the question asked before it.
	ClearPreview(ctx context.Context) (live.ClearPreview, error)

	// Transcript is the whole active conversation, however much of it the snapshot holds, for
	// copying and /export.
	Transcript(ctx context.Context) (records.Conversation, error)

	// Trace returns what the inspector shows for one turn: back 0 is the
	// latest turn, 1 the one before, and so on. ok is false past either end.
	Trace(back int) (trace live.TurnTrace, ok bool)
}
