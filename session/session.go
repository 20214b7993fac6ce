// Package session runs one simulated shift: the turn pipeline, the patient registry logic, the
// sim clock and the slash commands. The headless runner (`ward run`) drives it directly; a screen
// through session/live. What a stored shift says is read by session/records; replay and evals
// play into it from session/playback.
package session

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
)

// Config wires a session to its store, models and rules. Zero fields take the defaults.
type Config struct {
	Store     *persist.Store
	Backend   llm.Backend
	Analyzer  analyzer.Analyzer
	Team      *agents.Team
	Scenarios *scenario.Library
	Pattern   *regexp.Regexp
	Window    memory.Window
	NumCtx    int
	// OutputBudget is num_predict for a simple turn (default 2000); compound turns get 1.5× and 2×.
	OutputBudget int
	// Tools says the model can call tools (Ollama's capabilities); without them the engine's
	// results travel in the dynamic context.
	Tools bool
	Trace *llm.TraceWriter
	// Observer hears the calls of the backends traced for the analyzer and the router
	// (llm.Traced): each turn makes them part of itself, as llm_call events and inspector entries.
	// nil when those backends report to none.
	Observer *llm.Observer
	// Knowledge is the protocol cards the team answers from; nil for none.
	Knowledge *knowledge.KB
	// Shift is a built-in shift's id or a shift file that Start admits; "" for an empty roster.
	Shift string
	// Seed makes a new shift's physiology noise reproducible; 0 takes one from the clock. A
	// resumed shift keeps the seed it started with.
	Seed int64
	// ConfirmAdmissions makes a new patient named in free text wait for the trainee's yes (a
	// ConfirmEvent) once the shift has patients. The TUI sets it; `ward run` never prompts.
	ConfirmAdmissions bool
	// Audit records opening the shift, clearing it and taking its chat out of ward; nil records
	// nothing.
	Audit *persist.AuditLog
	// Now stamps messages with wall time; tests fix it.
	Now func() time.Time
	// Replaying is the recorded run a replay plays again; nil when the shift is live. Its
	// trainee's findings come from its header, since the replay's store holds none of their
	// earlier shifts; when it ranked protocol cards with an embedding model, its retrievals
	// answer in order, since a replay asks no model.
	Replaying *llm.TraceRun
	// Instructor shows the engine's secrets (the case, its states, the true vitals, what the
	// patient has not said) in the inspector, /inspect and the decision's reasoning: the
	// instructor's view, or a developer's on a plaintext database. Off, they are masked.
	Instructor bool
}

// Session is one shift. It is not safe for concurrent use: the UI and the runner call it from one
// goroutine at a time.
type Session struct {
	cfg       Config
	info      persist.SessionInfo
	named     bool     // Resume named the shift's trainee, which the next commit writes (saveSim)
	active    string   // in-memory active patient, "" when none
	reg       registry // the settle stage: the mirror of the stored registry
	chat      chat     // the active conversation held in memory, which the converse stage reads
	sim       *sim
	paused    bool            // the real-time clock (TUI) is stopped
	speed     float64         // sim seconds per wall second, 1–10
	turns     []TurnRecord    // the latest turns, newest last, for the inspector
	at        time.Time       // the wall time of the input being handled, which its prompts carry (see begin)
	prefs     Prefs           // the trainee's preferences
	offered   map[string]bool // preference values the trainee was already asked to keep
	recurring []string        // findings that recur across the trainee's earlier shifts (records.Recurring)
	cards     cards           // the protocol passages the team answers from

	personas map[*scenario.Scenario]*agents.Persona // each patient's persona, made at their first prompt (see persona)
}

// Start begins a new shift: empty, or with the roster of cfg.Shift.
func Start(cfg Config) (*Session, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	now := cfg.Now().UTC()
	seed := cfg.Seed
	if seed == 0 {
		seed = now.UnixNano()
	}
	who := cfg.Store.Person()
	info := persist.SessionInfo{ID: newSessionID(now), CreatedAt: now, Seed: seed, Trainee: who.Trainee,
		TraineeIsLogin: who.Login && who.Trainee != ""}
	if err := cfg.Store.CreateSession(info); err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, info: info, reg: newRegistry(cfg), chat: chat{window: cfg.Window}, cards: newCards(cfg), sim: newSim(cfg.Scenarios, info.Seed, 0), speed: 1}
	s.reg.mirror(persist.Registry{Patients: map[string]persist.PatientEntry{}})
	if cfg.Shift != "" {
		if err := s.admitShift(cfg.Shift); err != nil {
			return nil, err
		}
	}
	if err := s.knowTrainee(); err != nil {
		return nil, err
	}
	if err := cfg.Audit.Record(who, persist.AuditOpen, info.ID, "a new shift"); err != nil {
		return nil, err
	}
	return s, s.traceHeader(false)
}

// Resume continues the latest shift in the store. The active patient is not revived here: the
// first turn restores it from the registry, as a new process would.
func Resume(cfg Config) (*Session, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	info, ok, err := cfg.Store.LatestSession()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, records.ErrNoShift
	}
	who := cfg.Store.Person()
	s := &Session{cfg: cfg, info: info, reg: newRegistry(cfg), chat: chat{window: cfg.Window}, cards: newCards(cfg), sim: newSim(cfg.Scenarios, info.Seed, info.ClockSeconds), speed: 1}
	named := info.TraineeIsLogin && !who.Login && who.Trainee == info.Trainee
	if named || info.Trainee == "" && who.Trainee != "" {
		// a shift from before ward had trainees is the first trainee's to resume it, and one
		// begun under the login's name is named once its trainee resumes it with --trainee.
		// The name is written with the next commit: a write now would wait for the store's
		// damage check, which runs while the screen opens.
		s.info.Trainee, s.info.TraineeIsLogin = who.Trainee, who.Login
		s.named = true
	}
	err = cfg.Store.View(info.ID, func(tx *persist.Tx) error {
		reg, err := tx.Registry()
		s.reg.mirror(reg)
		return err
	})
	if err == nil {
		err = s.knowTrainee()
	}
	if err != nil {
		return nil, err
	}
	s.sim.asleep, s.sim.read = slices.Clone(s.reg.roster), s.readDoc
	if err := s.loadHistory(""); err != nil {
		return nil, err
	}
	if err := cfg.Audit.Record(who, persist.AuditOpen, info.ID, "resumed"); err != nil {
		return nil, err
	}
	return s, s.traceHeader(true)
}

// knowTrainee reads what ward keeps of the shift's trainee: their preferences, and the findings
// that recur across their earlier shifts, which the Preceptor's debrief names.
func (s *Session) knowTrainee() (err error) {
	s.offered = map[string]bool{}
	if s.info.Trainee == "" {
		return nil
	}
	if s.prefs, err = LoadPrefs(s.cfg.Store, s.info.Trainee); err != nil {
		return err
	}
	if s.prefs.Speed > 0 {
		s.speed = s.prefs.Speed
	}
	if run := s.cfg.Replaying; run != nil {
		s.recurring = run.Header.Recurring
		return nil
	}
	s.recurring, err = records.Recurring(s.cfg.Store, s.cfg.Scenarios, s.info.Trainee, s.info.ID)
	return err
}

func withDefaults(cfg Config) (Config, error) {
	var err error
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Pattern == nil {
		cfg.Pattern = analyzer.DefaultPatientIDPattern
	}
	if cfg.Window == (memory.Window{}) {
		cfg.Window = memory.DefaultWindow()
	}
	if cfg.NumCtx == 0 {
		cfg.NumCtx = llm.DefaultNumCtx
	}
	if cfg.OutputBudget == 0 {
		cfg.OutputBudget = memory.BaseNumPredict
	}
	if cfg.Analyzer == nil {
		cfg.Analyzer = analyzer.NewAnalyzer(nil)
	}
	if cfg.Team == nil {
		cfg.Team, err = agents.LoadTeam("")
	}
	if cfg.Scenarios == nil && err == nil {
		cfg.Scenarios, err = scenario.Load()
	}
	if err == nil && cfg.Trace != nil && cfg.Store != nil {
		if encrypted, _ := cfg.Store.Encrypted(); encrypted {
			err = ErrTraceOfEncrypted
		}
	}
	if err == nil && cfg.Backend == nil {
		err = ErrNoBackend
	}
	return cfg, err
}

// ErrNoBackend is a shift configured without a model backend: the composition root (main) or a
// test chooses one, offline or Ollama; the turn links neither.
var ErrNoBackend = errors.New("session: no backend configured")

// ErrTraceOfEncrypted refuses --trace on an encrypted database: a trace holds every prompt and
// reply in plain text, which would undo the encryption of the shift it records.
var ErrTraceOfEncrypted = errors.New("--trace writes every prompt and reply in plain text, so ward does not trace a shift of an encrypted database; trace a shift of a plaintext database instead")

func newSessionID(now time.Time) string {
	return fmt.Sprintf("s%s", now.UTC().Format("20060102T150405.000000000"))
}

// ID is the session (conversation) id.
func (s *Session) ID() string { return s.info.ID }

// Active is the in-memory active patient, "" when none.
func (s *Session) Active() string { return s.active }

// Conversation is the in-memory chat context: one fresh snapshot at index 0, then the history.
func (s *Session) Conversation() []memory.Message {
	return withSnapshot(s.chat.history, snapshotMessage(s.info.ID, s.active, s.reg.roster, s.cfg.Now()))
}

// readDoc reads one of a patient's stored documents, for waking them.
func (s *Session) readDoc(kind, patientID string) (doc []byte, err error) {
	err = s.cfg.Store.View(s.info.ID, func(tx *persist.Tx) error {
		doc, err = tx.PatientDoc(kind, patientID)
		return err
	})
	return doc, err
}

// loadHistory makes patientID ("" for the session) the conversation held in memory.
func (s *Session) loadHistory(patientID string) error {
	return s.cfg.Store.View(s.info.ID, func(tx *persist.Tx) error { return s.chat.load(tx, patientID) })
}

// shiftNamed is a built-in shift, a shift file, or the trainee's suggested next shift
// (records.NextShiftID), drawn from their progress as it stands, with why each patient is on
// it, in words that name no case of it.
func (s *Session) shiftNamed(nameOrFile string) (sh scenario.Shift, why string, err error) {
	if nameOrFile != records.NextShiftID {
		sh, err = s.cfg.Scenarios.Shift(nameOrFile)
		return sh, "", err
	}
	p, err := records.ReadProgress(s.cfg.Store, s.cfg.Scenarios)
	if err != nil {
		return sh, "", fmt.Errorf("the next shift: %w", err)
	}
	if sh, err = p.Roster(s.cfg.Scenarios); err != nil {
		return sh, "", err
	}
	var b strings.Builder
	b.WriteString("This shift was drawn from your progress:")
	for i, n := range p.Next {
		fmt.Fprintf(&b, "\n- %s: %s", sh.Patients[i].ID, n.Reason)
	}
	return sh, b.String(), nil
}

// admitShift puts a shift's patients on the ward and the roster, none of them active yet; a
// shift drawn from the trainee's progress says why in the shift's own conversation.
func (s *Session) admitShift(nameOrFile string) error {
	sh, why, err := s.shiftNamed(nameOrFile)
	if err != nil {
		return err
	}
	roster, err := s.cfg.Scenarios.Roster(sh, s.info.Seed)
	if err != nil {
		return err
	}
	for _, p := range roster {
		id, ok := analyzer.NormalizeID(p.ID, s.cfg.Pattern)
		if !ok {
			return fmt.Errorf("shift %s: patient id %q does not match PATIENT_ID_PATTERN %s", sh.ID, p.ID, s.cfg.Pattern)
		}
		e, err := s.sim.admit(id, p.Scenario, s.reg.onRoster(factScenario))
		if err != nil {
			return fmt.Errorf("shift %s: %w", sh.ID, err)
		}
		s.reg.mirror(s.reg.with(id, "", e, p.Bed, s.cfg.Now().UTC()))
		s.reg.unsaved = true
	}
	s.info.Shift = sh.ID
	var said []memory.Message
	if why != "" {
		said = append(said, s.message(memory.RoleAssistant, memory.SystemAgent, why))
	}
	err = s.store(func(b *persist.Batch) error { // the whole roster, in one commit
		return errors.Join(b.PutInfo(s.info), b.Append("", said...))
	})
	if err == nil {
		s.chat.remember(said...)
	}
	return err
}
