package physio

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// How a patient is watched. A patient on a monitor alarms when a vital crosses its limits; any
// other patient (unless the scenario says nobody watches them) has observations taken by a nurse
// at the interval their last NEWS2 calls for, and the nurse escalates a score that needs a review.
// An alarm or escalation stays open, and sounds again, until the trainee has both acknowledged it
// and reviewed the patient (done anything for them) since it sounded first.

// Alert kinds and levels, as ward run's "event" and "level" fields.
const (
	AlertAlarm      = "alarm"      // a monitor limit crossed
	AlertEscalation = "escalation" // a nurse's call

	LevelAlarm     = "alarm"
	LevelUrgent    = "urgent"    // NEWS2 5–6, or 3 in one parameter: urgent review
	LevelEmergency = "emergency" // NEWS2 7 or more: emergency assessment
)

// levelRank orders levels by how soon the trainee must go: an emergency call before a monitor
// alarm, an alarm before an urgent call.
var levelRank = map[string]int{LevelUrgent: 1, LevelAlarm: 2, LevelEmergency: 3}

// Rank is how urgent a level is, 0 for none.
func Rank(level string) int { return levelRank[level] }

// AlertRecord is one alarm or escalation and what the trainee did about it.
type AlertRecord struct {
	// T is when the alert last sounded: Raised, then each repeat.
	T       float64  `json:"t"`
	Raised  float64  `json:"raised"`
	Kind    string   `json:"kind"`  // alarm | escalation
	Level   string   `json:"level"` // alarm | urgent | emergency
	NEWS2   int      `json:"news2"`
	Crossed []string `json:"crossed,omitempty"` // an alarm's limits crossed: "SpO2 84 (below 90)"
	Text    string   `json:"text"`              // what the monitor or the nurse says, without the speaker
	Repeats int      `json:"repeats,omitempty"`
	// Arrest is whether the alert called a heart that had stopped.
	Arrest bool `json:"arrest,omitempty"`
	// Acknowledged and Reviewed are when the trainee acknowledged the alert and first did
	// something for the patient after it; nil until then.
	Acknowledged *float64 `json:"acknowledged,omitempty"`
	Reviewed     *float64 `json:"reviewed,omitempty"`
}

// Open reports whether the alert still waits for the trainee.
func (a AlertRecord) Open() bool { return a.Acknowledged == nil || a.Reviewed == nil }

// alertRepeat is how long an open alert waits after it sounded, or was acknowledged, before it
// sounds again.
const alertRepeat = 120

// bedsideWithin is how recently the trainee must have done something for a patient to count as
// at the bedside, where a nurse tells them rather than calls them.
const bedsideWithin = 120

// Observation intervals in sim seconds. RCP 2017 (NEWS2 chart 3) sets the least frequent
// observations by score: 12-hourly at 0, 4–6-hourly at 1–4, hourly at 5–6 or a 3 in one
// parameter, continuous at 7 or more. A shift plays in sim minutes, so an hour of the ward's
// routine is played as 5 sim minutes (×12): 60, 20 and 5 minutes, and every minute (the
// monitor's own cadence) for continuous. A new patient, with no score yet, is first observed
// within 5 minutes, as for the hourly band.
const (
	obsFirst      = 5 * 60
	obsHourly     = 5 * 60
	obsFourHourly = 20 * 60
	obsTwelveHour = 60 * 60
	obsContinuous = 60
)

// ObsInterval is how long after a reading the nurse observes again.
func ObsInterval(news2 int, band string) float64 {
	switch {
	case news2 >= 7:
		return obsContinuous
	case news2 >= 5 || band == BandLowMedium:
		return obsHourly
	case news2 >= 1:
		return obsFourHourly
	}
	return obsTwelveHour
}

// escalationLevel is the review a nurse asks for on a reading: RCP 2017's urgent response at 5
// or a single 3, emergency at 7.
func escalationLevel(r Reading) string {
	switch {
	case r.NEWS2 >= 7:
		return LevelEmergency
	case r.NEWS2 >= 5 || r.Band == BandLowMedium:
		return LevelUrgent
	}
	return ""
}

// defaultLimits are the monitor's adult alarm limits: near the values NEWS2 scores 3 (RCP
// 2017), a little wider for heart and breathing rate so an emergency patient's expected
// tachycardia does not alarm on every reading.
var defaultLimits = []sc.AlarmLimit{
	{Vital: sc.HR, Below: true, Value: 40}, {Vital: sc.HR, Value: 130},
	{Vital: sc.RR, Below: true, Value: 8}, {Vital: sc.RR, Value: 30},
	{Vital: sc.SpO2, Below: true, Value: 90},
	{Vital: sc.SBP, Below: true, Value: 90}, {Vital: sc.SBP, Value: 200},
}

// AlarmLimits are the patient's alarm limits: the adult defaults, the scenario's own, then the
// trainee's, a later limit replacing an earlier one on the same vital and side.
func (e *Engine) AlarmLimits() []sc.AlarmLimit {
	var out []sc.AlarmLimit
	for _, l := range slices.Concat(defaultLimits, e.sc.Monitoring.Alarms, e.s.Limits) {
		out = setLimit(out, l)
	}
	return out
}

// SetAlarmLimit changes one of the patient's alarm limits.
func (e *Engine) SetAlarmLimit(l sc.AlarmLimit) { e.s.Limits = setLimit(e.s.Limits, l) }

func setLimit(limits []sc.AlarmLimit, l sc.AlarmLimit) []sc.AlarmLimit {
	i := slices.IndexFunc(limits, func(x sc.AlarmLimit) bool { return x.Vital == l.Vital && x.Below == l.Below })
	if i >= 0 {
		limits[i] = l
		return limits
	}
	return append(limits, l)
}

// Alerts is the engine's log of alarms and escalations, read-only.
func (e *Engine) Alerts() []AlertRecord { return capped(e.s.Alerts) }

// Waiting is the most urgent open alert, an arrest's call before other calls of its level, the
// oldest of equals; ok is false when none waits.
func (e *Engine) Waiting() (a AlertRecord, ok bool) {
	for _, x := range e.s.Alerts {
		if x.Open() && (!ok || Rank(x.Level) > Rank(a.Level) || x.Arrest && !a.Arrest && Rank(x.Level) == Rank(a.Level)) {
			a, ok = x, true
		}
	}
	return a, ok
}

// Acknowledge marks every open alert acknowledged now and returns how many there were.
func (e *Engine) Acknowledge() int {
	n := 0
	for i := range e.s.Alerts {
		if a := &e.s.Alerts[i]; a.Acknowledged == nil {
			a.Acknowledged = e.now()
			n++
		}
	}
	return n
}

// reviewed marks the alerts the trainee has not yet answered as reviewed now: they are with the
// patient.
func (e *Engine) reviewed() {
	e.s.Attended = e.s.T
	for i := range e.s.Alerts {
		if a := &e.s.Alerts[i]; a.Reviewed == nil {
			a.Reviewed = e.now()
		}
	}
}

func (e *Engine) now() *float64 {
	t := float64(e.s.T)
	return &t
}

// observed reports whether a nurse takes this patient's observations.
func (e *Engine) observed() bool {
	return !e.s.Monitored && e.sc.Monitoring.Mode != sc.MonitorNone
}

// watch runs the monitor or the nurse for one second: a reading when one is due, or at once on
// the monitor when the rhythm has changed since before, the alarm or escalation it calls for,
// and the repeat of any open alert.
func (e *Engine) watch(before sc.Rhythm, out []Event) []Event {
	t := e.s.T
	switch {
	case e.s.Monitored && (t >= e.s.NextReading || e.Rhythm() != before):
		out = e.measure(ReadByMonitor, out)
		e.s.NextReading = t + monitorInterval
		out = e.alarm(out)
	case e.observed() && t >= e.s.NextObs:
		out = e.measure(ReadByNurse, out)
		out = e.escalate(out)
	}
	return e.repeat(e.callArrest(out))
}

// alarm sounds when the newest monitor reading crosses a limit it did not cross before. A
// limit stays latched while it is crossed, so a vital that stays low alarms once, then repeats
// until answered, rather than raising a new alarm every minute. A heart that stops alarms even
// while another alarm waits: the monitor's loudest call is never folded into an older one.
func (e *Engine) alarm(out []Event) []Event {
	r := e.s.Readings[len(e.s.Readings)-1]
	crossed, keys := e.crossings(r)
	fresh := slices.ContainsFunc(keys, func(k string) bool { return !slices.Contains(e.s.Latched, k) })
	e.s.Latched = keys
	stopped := r.NoOutput && !e.alertedArrest()
	if !stopped && (!fresh || e.openAlert(AlertAlarm)) {
		return out
	}
	text := "Alarm: " + strings.Join(crossed, ", ") + "."
	return e.raise(AlertRecord{Kind: AlertAlarm, Level: LevelAlarm, NEWS2: r.NEWS2, Crossed: crossed, Text: text, Arrest: r.NoOutput}, out)
}

// crossings are the alarm limits a reading crosses, as the monitor words them, and their keys.
func (e *Engine) crossings(r Reading) (crossed, keys []string) {
	for _, l := range e.AlarmLimits() {
		v, measured := readingValue(r, l.Vital)
		if !measured || !l.Crossed(v) {
			continue
		}
		keys = append(keys, l.String())
		crossed = append(crossed, crossing(l, v))
	}
	return crossed, keys
}

// alertedArrest reports whether the arrest going on now has already been called, by the
// monitor's alarm or the nurse.
func (e *Engine) alertedArrest() bool {
	a := e.s.Arrest
	return a != nil && slices.ContainsFunc(e.s.Alerts, func(x AlertRecord) bool { return x.Arrest && x.Raised >= float64(a.Onset) })
}

// escalate lets the nurse call for a review when the reading reaches a level not called for
// yet. A score that falls below 5 (with no single 3) settles the patient, so a later rise is
// called again. A nurse does not call the doctor who is at the bedside: while the trainee has
// done something for the patient within the last bedsideWithin seconds, the call waits for the
// next observation.
func (e *Engine) escalate(out []Event) []Event {
	r := e.s.Readings[len(e.s.Readings)-1]
	level := escalationLevel(r)
	if Rank(level) <= Rank(e.s.Escalated) {
		if level == "" {
			e.s.Escalated = ""
		}
		return out
	}
	if e.s.Attended >= 0 && e.s.T-e.s.Attended < bedsideWithin {
		return out
	}
	e.s.Escalated = level
	var buf [160]byte
	text := string(appendCall(buf[:0], r, level))
	return e.raise(AlertRecord{Kind: AlertEscalation, Level: level, NEWS2: r.NEWS2, Text: text}, out)
}

// appendCall writes what a nurse says calling for a review at level: "NEWS2 7 (Scale 1) — RR 28,
// SpO2 90% on air, BP 78/48, HR 132, temp 36.8, GCS 14. Urgent review please."
func appendCall(b []byte, r Reading, level string) []byte {
	return append(append(appendFindings(b, r), ". "...), askFor(level)...)
}

// appendFindings is what a nurse's call says she found: the score and the observations.
func appendFindings(b []byte, r Reading) []byte {
	b = appendInt(b, "NEWS2 ", r.NEWS2)
	b = appendInt(b, " (Scale ", max(1, r.Scale))
	return appendObs(append(b, ") — "...), r)
}

// askFor is how a nurse asks for the review a level calls for.
func askFor(level string) string {
	if level == LevelEmergency {
		return "Emergency — please come now."
	}
	return "Urgent review please."
}

// callArrest is the nurse finding a patient no monitor watches with no signs of life: she calls
// the arrest at once, whatever else she has called, and says what she found, not a rhythm (only
// a monitor shows one).
func (e *Engine) callArrest(out []Event) []Event {
	if !e.observed() || !e.Rhythm().Arrest() || e.alertedArrest() {
		return out
	}
	out = e.measure(ReadByNurse, out)
	e.s.Escalated = LevelEmergency
	text := "Cardiac arrest — unresponsive, no pulse, not breathing normally. I've pulled the emergency buzzer — please come now."
	return e.raise(AlertRecord{Kind: AlertEscalation, Level: LevelEmergency, NEWS2: e.s.Readings[len(e.s.Readings)-1].NEWS2, Text: text, Arrest: true}, out)
}

func (e *Engine) raise(a AlertRecord, out []Event) []Event {
	a.T, a.Raised = float64(e.s.T), float64(e.s.T)
	e.s.Alerts = append(e.s.Alerts, a)
	return append(out, Event{Kind: a.Kind, PatientID: e.s.PatientID, Alert: a})
}

func (e *Engine) openAlert(kind string) bool {
	return slices.ContainsFunc(e.s.Alerts, func(a AlertRecord) bool { return a.Kind == kind && a.Open() })
}

// repeat sounds each open alert again alertRepeat seconds after it last sounded or was
// acknowledged. A repeat is observed afresh: the monitor or the nurse says the numbers now, and
// when the call was first made. The newest open call of each kind speaks for the older ones, and
// while an arrest that has been called goes on, the arrest's call is the one that sounds.
func (e *Engine) repeat(out []Event) []Event {
	t := float64(e.s.T)
	for i := range e.s.Alerts {
		a := &e.s.Alerts[i]
		if !a.Open() {
			continue
		}
		since := a.T
		if a.Acknowledged != nil {
			since = max(since, *a.Acknowledged)
		}
		if t >= since+alertRepeat && !e.superseded(i) {
			var r Reading
			r, out = e.observeNow(out)
			a.T = t
			a.Repeats++
			a.Text = e.again(*a, r)
			out = append(out, Event{Kind: a.Kind, PatientID: e.s.PatientID, Alert: *a})
		}
	}
	return out
}

// superseded reports whether a newer open call of the same kind, or the call of the arrest going
// on now, speaks for alert i.
func (e *Engine) superseded(i int) bool {
	a := e.s.Alerts[i]
	if !a.Arrest && e.Rhythm().Arrest() && e.alertedArrest() {
		return true
	}
	return slices.ContainsFunc(e.s.Alerts[i+1:], func(x AlertRecord) bool { return x.Kind == a.Kind && x.Open() })
}

// observeNow is the newest reading if it was taken this second, else a reading taken now by the
// monitor or, without one, the nurse.
func (e *Engine) observeNow(out []Event) (Reading, []Event) {
	if n := len(e.s.Readings); n > 0 && e.s.Readings[n-1].T == float64(e.s.T) {
		return e.s.Readings[n-1], out
	}
	source := ReadByNurse
	if e.s.Monitored {
		source = ReadByMonitor
	}
	out = e.measure(source, out)
	return e.s.Readings[len(e.s.Readings)-1], out
}

// again is what the monitor or the nurse says when an open alert sounds again: the reading now,
// worded as a first call would word it, and the time of the first call. A nurse asks for no more
// than the patient now needs: once the score has settled below any call, that the call be
// acknowledged; once the trainee has been to the patient, the plan; at an arrest they are
// running, nobody to come.
func (e *Engine) again(a AlertRecord, r Reading) string {
	since := a.Raised - float64(e.s.Admitted)
	if a.Kind == AlertAlarm {
		if crossed, _ := e.crossings(r); len(crossed) > 0 {
			return fmt.Sprintf("Alarm again (first at T+%s): %s.", SimTime(since), strings.Join(crossed, ", "))
		}
		return fmt.Sprintf("Alarm unanswered since T+%s; now within limits: %s.", SimTime(since), obsText(r))
	}
	if r.NoOutput && a.Reviewed != nil { // the trainee is at the arrest: she calls nobody to it
		return fmt.Sprintf("Still no pulse and not breathing (arrest first called at T+%s).", SimTime(since))
	}
	if r.NoOutput {
		return fmt.Sprintf("Still no pulse and not breathing — please come now (first called at T+%s).", SimTime(since))
	}
	// the nurse's call, again every few minutes until answered: written in one buffer
	var buf [240]byte
	if escalationLevel(r) == "" {
		// The score has fallen below any call since: she asks for no review it no longer needs.
		b := appendSimTime(append(buf[:0], "Settled since the call at T+"...), since)
		return string(append(appendFindings(append(b, ": "...), r), ". Please acknowledge the call."...))
	}
	if a.Reviewed != nil {
		// The trainee has been to the patient but not taken the call on: she does not say she is
		// still waiting for the review they gave, she asks what is to be done.
		b := appendSimTime(append(buf[:0], "Still unwell after your review at T+"...), *a.Reviewed-float64(e.s.Admitted))
		b = appendSimTime(append(b, " (first called at T+"...), since)
		return string(append(appendFindings(append(b, "): "...), r), ". What is the plan?"...))
	}
	b := appendSimTime(append(buf[:0], "Still waiting for a review (first called at T+"...), since)
	return string(appendCall(append(b, "): "...), r, a.Level))
}

// readingValue is a monitored vital of a reading; measured is false for one the reading lacks.
func readingValue(r Reading, v sc.Vital) (float64, bool) {
	switch v {
	case sc.HR:
		return float64(r.HR), true
	case sc.RR:
		return float64(r.RR), true
	case sc.SpO2:
		return float64(r.SpO2), true
	case sc.SBP:
		return float64(r.SBP), true
	case sc.DBP:
		return float64(r.DBP), true
	case sc.EtCO2:
		return float64(r.EtCO2), r.EtCO2 > 0
	}
	return 0, false
}

// vitalLabels name the monitored vitals as a monitor shows them.
var vitalLabels = map[sc.Vital]string{sc.HR: "HR", sc.RR: "RR", sc.SpO2: "SpO2", sc.SBP: "SBP", sc.DBP: "DBP", sc.EtCO2: "EtCO2"}

func crossing(l sc.AlarmLimit, v float64) string {
	side := "above"
	if l.Below {
		side = "below"
	}
	return fmt.Sprintf("%s %g (%s %g)", vitalLabels[l.Vital], v, side, l.Value)
}

// obsText names the numbers a nurse calls with: "RR 28, SpO2 90% on air, BP 78/48, HR 132, temp
// 36.8, GCS 14".
func obsText(r Reading) string {
	var buf [96]byte
	return string(appendObs(buf[:0], r))
}

// appendObs writes obsText after b.
func appendObs(b []byte, r Reading) []byte {
	air := "on air"
	if r.OnOxygen {
		air = "on oxygen"
	}
	b = appendInt(b, "RR ", r.RR)
	b = appendInt(b, ", SpO2 ", r.SpO2)
	b = append(append(append(b, "% "...), air...), ", BP "...)
	b = appendInt(appendInt(b, "", r.SBP), "/", r.DBP)
	b = appendInt(b, ", HR ", r.HR)
	b = strconv.AppendFloat(append(b, ", temp "...), r.TempC, 'f', 1, 64)
	return appendInt(b, ", GCS ", r.GCS)
}

// appendInt writes label and n after b.
func appendInt(b []byte, label string, n int) []byte {
	return strconv.AppendInt(append(b, label...), int64(n), 10)
}
