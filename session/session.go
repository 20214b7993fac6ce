// Package session runs one simulated shift: the turn pipeline, the patient registry logic and the
// sim clock. It is the only package the UI and the headless runner talk to.
package session

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/persist"
)

// Config wires a session to its store, models and rules.
type Config struct {
	Store    *persist.Store
	Backend  agents.Backend
	Analyzer agents.Analyzer
	Pattern  *regexp.Regexp
	Trace    *agents.TraceWriter
	// Now stamps messages with wall time; tests fix it.
	Now func() time.Time
}

// Session is one shift. It is not safe for concurrent use: the UI and the runner call it from one
// goroutine at a time.
type Session struct {
	cfg     Config
	info    persist.SessionInfo
	active  string            // in-memory active patient, "" when none
	history []persist.Message // the newest messages of the active conversation, oldest first
}

// recentLimit is how much of a conversation is held in memory for prompts. It covers the largest
// message window with room to spare; the full history stays in the store.
const recentLimit = 64

// ErrNoSession is returned by Resume when the store holds no session yet.
var ErrNoSession = errors.New("no session in this database yet")

// Start begins a new, empty shift.
func Start(cfg Config) (*Session, error) {
	cfg = withDefaults(cfg)
	info := persist.SessionInfo{ID: newSessionID(cfg.Now()), CreatedAt: cfg.Now().UTC()}
	if err := cfg.Store.CreateSession(info); err != nil {
		return nil, err
	}
	return &Session{cfg: cfg, info: info}, nil
}

// Resume continues the latest shift in the store. The active patient is not revived here: the
// first turn restores it from the registry, as a new process would.
func Resume(cfg Config) (*Session, error) {
	cfg = withDefaults(cfg)
	info, ok, err := cfg.Store.LatestSession()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrNoSession
	}
	s := &Session{cfg: cfg, info: info}
	return s, s.loadHistory("")
}

func withDefaults(cfg Config) Config {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Pattern == nil {
		cfg.Pattern = regexp.MustCompile(DefaultPatientIDPattern)
	}
	return cfg
}

func newSessionID(now time.Time) string {
	return fmt.Sprintf("s%s", now.UTC().Format("20060102T150405.000000000"))
}

// ID is the session (conversation) id.
func (s *Session) ID() string { return s.info.ID }

// Active is the in-memory active patient, "" when none.
func (s *Session) Active() string { return s.active }

// Conversation is the in-memory chat context: one fresh snapshot at index 0, then the history.
func (s *Session) Conversation() ([]persist.Message, error) {
	reg, err := s.registry()
	if err != nil {
		return nil, err
	}
	return withSnapshot(s.history, snapshotMessage(s.info.ID, s.active, rosterIDs(reg), s.cfg.Now())), nil
}

func (s *Session) registry() (persist.Registry, error) {
	var reg persist.Registry
	err := s.cfg.Store.View(s.info.ID, func(tx *persist.Tx) error {
		var err error
		reg, err = tx.Registry()
		return err
	})
	return reg, err
}

// loadHistory makes patientID ("" for the session) the conversation held in memory.
func (s *Session) loadHistory(patientID string) error {
	return s.cfg.Store.View(s.info.ID, func(tx *persist.Tx) error {
		h, err := tx.Recent(patientID, recentLimit)
		s.history = h
		return err
	})
}

// remember appends to the in-memory conversation, keeping only its newest recentLimit messages.
func (s *Session) remember(msgs ...persist.Message) {
	s.history = append(s.history, msgs...)
	if extra := len(s.history) - recentLimit; extra > 0 {
		s.history = append(s.history[:0:0], s.history[extra:]...)
	}
}

func rosterIDs(reg persist.Registry) []string {
	ids := make([]string, 0, len(reg.Patients))
	for id := range reg.Patients {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// analyze asks the analyzer what the text means for the patient context.
func (s *Session) analyze(ctx context.Context, text string, roster []string) agents.Decision {
	return s.cfg.Analyzer.Analyze(ctx, agents.AnalyzerInput{
		Text: text, ActivePatient: s.active, Roster: roster, Pattern: s.cfg.Pattern,
	})
}
