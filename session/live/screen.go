package live

// The view types a screen draws: one consistent picture of the shift, and the updates a turn
// streams to it. Live builds them; the UI only reads them.

import "time"

// ViewState is one consistent picture of the
type ViewState struct {
	Patient  Patient       // the active patient; ID is "" when none is active
	Roster   []RosterEntry // every patient in the registry, in ID order
	Vitals   []VitalSeries // the active patient's HR, RR, SpO2 and SBP
	Monitor  bool          // a monitor is attached, so Vitals are continuous
	ECG      ECGTrace      // the monitor's trace; nil without a monitor
	Chat     []ChatMessage // the newest messages of the active conversation (the session's when none); read-only
	ChatMore bool          // older messages are stored; LoadOlder shows the next page
	Clock    time.Duration // sim time since the shift began
	Paused   bool          // the sim clock is stopped
	Ended    bool          // the instructor ended the shift for debrief: the clock stands still for good
	Speed    float64       // sim seconds per wall-clock second
	Backend  string        // "ollama" or "offline"
	Model    string        // model name; empty for offline
	Last     TurnStats     // the most recent finished turn
	// Alerts are the alarms and escalations waiting, one per patient, the most urgent first.
	Alerts []Alert
	// Sounded counts the alarms and escalations that have sounded (or sounded again) since the
	// screen opened: the screen rings the bell when it grows.
	Sounded int
	// Writing are the replies a turn is streaming now, as far as they have come: a screen that
	// did not send the turn's line (a team's other members) shows them as they grow.
	Writing []Writing
}

// Writing is a reply still streaming: its ID (the one its deltas and its stored message carry),
// who speaks, and its text so far.
type Writing struct{ ID, Agent, Text string }

// Patient is what the header shows about the active patient.
type Patient struct {
	ID   string
	Name string
	Age  int
	Sex  string
	Bed  string
	// Presentation is what a triage note says of the patient: never the diagnosis or the
	// engine's state, which the trainee has to find out.
	Presentation string
	NEWS2        Score
	Allergies    []string // disclosed allergies, e.g. "penicillin (anaphylaxis)"
	Found        []string // the latest result of each look the trainee took: "pupils pinpoint"
}

// Score is a NEWS2 aggregate with its band.
type Score struct {
	Known bool // false until a full set of observations exists
	Value int  // 0–20
	Band  Band
	Scale int    // the SpO2 scale it was scored on: 1, or 2 once a target of 88–92 % is prescribed
	Text  string // "NEWS2 4 low-medium (Scale 1)", worded as every view words it
}

// Band is the NEWS2 clinical-risk band (RCP 2017).
type Band int

const (
	BandLow       Band = iota // aggregate 0–4
	BandLowMedium             // 0–4 but one parameter scores 3: urgent review
	BandMedium                // 5–6
	BandHigh                  // 7 or more
)

// Trend is the direction a score or a vital sign is moving in.
type Trend int

const (
	TrendFlat Trend = iota
	TrendUp
	TrendDown
)

// RosterEntry is one row of the roster.
type RosterEntry struct {
	ID          string
	Name        string
	NEWS2       Score
	Trend       Trend         // NEWS2 direction since the previous score
	LastChecked time.Duration // sim clock of the last reading; negative if never
	Overdue     bool          // the last reading is older than its NEWS2 calls for
	Alert       Alert         // the most urgent alarm or escalation waiting; Level AlertNone if none
	Disposition string        // where the patient went when their case ended; "" while it goes on
}

// Alert is an alarm or a nurse's escalation waiting for the trainee to acknowledge it and review
// the patient.
type Alert struct {
	PatientID string
	Level     AlertLevel
	Text      string        // what the monitor or the nurse said
	Raised    time.Duration // sim clock
}

// AlertLevel orders alerts by how soon the trainee must go.
type AlertLevel int

const (
	AlertNone      AlertLevel = iota
	AlertUrgent               // a nurse asks for an urgent review: NEWS2 5–6, or 3 in one parameter
	AlertAlarm                // a monitor limit crossed
	AlertEmergency            // a nurse asks for an emergency assessment: NEWS2 7 or more
)

// VitalSeries is one vital sign over the recent sim minutes.
type VitalSeries struct {
	Name   string       // "HR", "RR", "SpO2", "SBP"
	Unit   string       // "bpm", "/min", "%", "mmHg"
	Points []VitalPoint // oldest first; measured values unless a monitor is attached
}

// VitalPoint is one observation.
type VitalPoint struct {
	At    time.Duration // sim clock
	Value float64
}

// ChatMessage is one message of a history. The UI caches its rendering by
// (ID, Version, width, theme), so a message whose content changes must get
// a new Version.
type ChatMessage struct {
	ID      string
	Version int
	Role    string // user | assistant | system | tool
	Agent   string // which agent spoke, for assistant messages
	Content string
	Sources []string // the protocol passages the message cites, shown under it
	Speaker string   // in a team's shift, the member who said a line and their role
}

// TurnStats describes the last finished turn for the status bar.
type TurnStats struct {
	Latency      time.Duration
	PromptTokens int
	OutputTokens int
}

// UpdateKind says what an Update carries.
type UpdateKind int

const (
	// UpdateDelta: Text is the next piece of message MessageID, spoken by Agent.
	UpdateDelta UpdateKind = iota
	// UpdateChanged: the session changed (the user's text was stored, a
	// message completed, the active patient or the vitals changed). The UI
	// takes a new Snapshot; the completed message carries the deltas' MessageID.
	UpdateChanged
	// UpdateNotice: Text is a one-line note for the status bar.
	UpdateNotice
	// UpdateError: Text says what went wrong and what to do; the turn is over. Code is the
	// error's stable code, so a screen can tell a usage error from one worth retrying.
	UpdateError
	// UpdateConfirm: Text is a yes/no question; if the trainee says yes, the screen sends Line
	// as a new turn. The turn that asked changed nothing.
	UpdateConfirm
	// UpdateWaiting: the turn's model call waits in the class's queue for the model server, with
	// Ahead calls before it; Ahead 0 when it leaves the queue and goes to the model.
	UpdateWaiting
)

// Update is one thing a screen hears during a turn.
type Update struct {
	Kind      UpdateKind
	MessageID string
	Agent     string
	Text      string
	Code      string // UpdateError's code
	Line      string // UpdateConfirm's line to send on yes
	Ahead     int    // UpdateWaiting's count of calls ahead
}

// TurnTrace is everything the inspector shows about one turn.
type TurnTrace struct {
	Turn     int    // 1-based, within the session
	Input    string // what the trainee typed
	Analyzer AnalyzerTrace
	Calls    []LLMCall
	Counters string // the patient's entity and team counters after the turn
	// Rates are seed 002's rates of the patient's turns so far, one line per agent and the
	// patient's whole last, a rate past its alert level marked with !.
	Rates []string
	// Pruned are what the turn's pruning rules took out of what prompts may carry, one line a rule.
	Pruned []string
	Engine string // the engine's truth about the patient: scenario, title, state; never on the trainee's screen
}

// AnalyzerTrace is the patient-context decision of a turn.
type AnalyzerTrace struct {
	Input     string // the analyzer's input as it saw it
	Action    string // NONE | ACTIVATE_NEW | SWITCH_EXISTING | UNCHANGED | CLEAR
	PatientID string
	Source    string // rules | llm | fallback
	Reasoning string
	Elapsed   time.Duration
}

// LLMCall is one request to a backend and its answer.
type LLMCall struct {
	Agent      string
	Model      string
	Sections   []PromptSection // in prompt order
	NumPredict int
	Metrics    CallMetrics
	Reply      string
	Notes      []string // what else happened to the call: budget cuts, retries, the entity merge
}

// PromptSection is one part of the prompt: static, window, dynamic, memory
// or the new user message.
type PromptSection struct {
	Name     string
	Tokens   int // estimate
	Messages []PromptMessage
}

// PromptMessage is one message as sent.
type PromptMessage struct {
	Role    string
	Content string
	Rule    string // for a memory item, the recall rule that selected it
}

// CallMetrics are the backend's own counters for a call (Ollama's metrics).
type CallMetrics struct {
	PromptEvalCount    int
	PromptEvalDuration time.Duration
	EvalCount          int
	EvalDuration       time.Duration
	LoadDuration       time.Duration
	TotalDuration      time.Duration
	CacheHit           bool // judged by the engine from PromptEvalDuration
}
