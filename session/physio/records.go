package physio

import (
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// ActionRecord is an action as the engine applied it, at ward time T.
type ActionRecord struct {
	T float64 `json:"t"`
	action.Action
	// AllergiesAsked is set on medications given after the trainee had asked
	// about allergies.
	AllergiesAsked bool    `json:"allergies_asked,omitempty"`
	Glucose        float64 `json:"glucose,omitempty"` // result of a glucose check, mmol/L
	// GCS is the patient's true GCS when it was done, which says whether they could have given
	// a history; 0 in records kept before it was recorded.
	GCS int `json:"gcs,omitempty"`
	// AccessIn is when the vascular access this action sited is in (ward time).
	AccessIn float64 `json:"access_in,omitempty"`
	// InAt is when a drug or fluid by vein or bone goes in, ordered while its access was still
	// being sited (ward time); 0 when it went in at once.
	InAt float64 `json:"in_at,omitempty"`
	// Found is what an examination, or a pulse or rhythm check, found: the finding of the state
	// the body showed then.
	Found string `json:"found,omitempty"`
	// Scale is the NEWS2 SpO2 scale a prescribed target left the patient on.
	Scale int `json:"scale,omitempty"`
	// WrongSide: done on the side without the problem: a one-sided procedure, which treated
	// nothing, or an examination of a limb other than the case's one-sided limb. Either meets
	// nothing the case asks for (the injured leg's neurovascular check is not the sound leg's).
	WrongSide bool `json:"wrong_side,omitempty"`
}

// Reading is one set of measured vitals with its NEWS2.
type Reading struct {
	T float64 `json:"t"`
	Vitals
	NEWS2  int        `json:"news2"`
	Parts  NEWS2Parts `json:"news2_parts"`
	Band   string     `json:"news2_band"`
	Scale  int        `json:"news2_scale,omitempty"` // 0 in readings kept before the scale was recorded: Scale 1
	Source string     `json:"source"`                // ReadByCheck, ReadByMonitor or ReadByNurse
}

// Who measured a reading: the trainee's check, the monitor, or a nurse's routine observation.
const (
	ReadByCheck   = "check"
	ReadByMonitor = "monitor"
	ReadByNurse   = "nurse"
)

// A moment is a second of sim time in which vitals were measured. A trainee's check in the second
// the nurse or the monitor also read is a second reading of the same body, with the same numbers,
// so whatever tells a change (a trend arrow, the roster's NEWS2 direction, the monitor's "since")
// compares moments, never two readings of one.

// Moments yields a log of readings one per moment, oldest first: of readings in the same second,
// the latest stands for them.
func Moments(readings []Reading) iter.Seq[Reading] {
	return func(yield func(Reading) bool) {
		for i, r := range readings {
			if i+1 < len(readings) && readings[i+1].T == r.T {
				continue
			}
			if !yield(r) {
				return
			}
		}
	}
}

// PreviousMoment is the reading that stands for the moment before the newest reading's: the one a
// change is told from. ok is false while only one moment was measured.
func PreviousMoment(readings []Reading) (prev Reading, ok bool) {
	if len(readings) == 0 {
		return Reading{}, false
	}
	last := readings[len(readings)-1].T
	for i := len(readings) - 2; i >= 0; i-- {
		if readings[i].T < last {
			return readings[i], true
		}
	}
	return Reading{}, false
}

// StateChange records a move between scenario states; From is empty on arrival. Cause says what
// moved the patient (attribution.go), so the review charges the trainee only for their part.
type StateChange struct {
	T      float64 `json:"t"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Reason string  `json:"reason"`
	Cause  string  `json:"cause,omitempty"` // one of the Cause constants; empty in records kept before it was recorded
}

// SafetyRecord is a safety finding raised by an order at time T.
type SafetyRecord struct {
	T float64 `json:"t"`
	Finding
	AllergiesAsked bool `json:"allergies_asked"`
	// Known: the trainee could know of it (told, documented or measured), so it stopped or
	// cautioned the order; an unknown finding was found out only when the drug went in.
	Known bool `json:"known"`
}

// TimelineText is the finding as the review's timeline writes it: what was behind it, and
// whether the trainee could have known.
func (r SafetyRecord) TimelineText() string {
	what := "caution"
	if r.Level == sc.HardStop {
		what = "contraindication"
	}
	if !r.Known {
		what += " not known to the trainee"
	}
	return fmt.Sprintf("%s, %s: %s", r.Drug, what, r.Reason)
}

// ErrorRecord is a critical error: a scenario critical error, or a
// medication given against a hard stop.
type ErrorRecord struct {
	T           float64 `json:"t"`
	ID          string  `json:"id"`
	Description string  `json:"description"`
}

// ActiveEffect is an intervention's pull on one vital's target.
type ActiveEffect struct {
	Vital  sc.Vital `json:"vital"`
	Delta  float64  `json:"delta"`
	Cap    float64  `json:"cap"`
	HasCap bool     `json:"has_cap"`
	From   int64    `json:"from"`           // ward second it takes hold
	Full   int64    `json:"full,omitempty"` // ward second it reaches full strength; up to then it grows from From
	Until  int64    `json:"until"`          // ward second it ends; -1 until cancelled
	Source string   `json:"source"`
}

// Event kinds, as the "event" field of ward run's output.
const (
	EventVitals        = "vitals"
	EventAction        = "action"
	EventSafety        = "safety"
	EventState         = "state"
	EventCriticalError = "critical_error"
	EventOrder         = "order"         // a medication order as the Pharmacist checked it
	EventAlarm         = AlertAlarm      // a monitor alarm sounded, or sounded again
	EventEscalation    = AlertEscalation // a nurse called for a review, or called again
	EventECG           = "ecg"           // the monitor's trace, sampled, when someone looks at it
)

// Event is something the engine reports. Exactly one payload is set, as
// Kind says; it marshals flat: {"event":"action","patient_id":…,"t":…,…}.
type Event struct {
	Kind      string
	PatientID string
	Reading   Reading
	Action    ActionRecord
	Safety    SafetyRecord
	State     StateChange
	Error     ErrorRecord
	Order     OrderRecord
	Alert     AlertRecord
	Strip     Strip
}

// T is the ward time of the event in seconds.
func (e Event) T() float64 {
	switch e.Kind {
	case EventVitals:
		return e.Reading.T
	case EventAction:
		return e.Action.T
	case EventSafety:
		return e.Safety.T
	case EventState:
		return e.State.T
	case EventOrder:
		return e.Order.T
	case EventAlarm, EventEscalation:
		return e.Alert.T
	case EventECG:
		return e.Strip.T
	}
	return e.Error.T
}

func (e Event) MarshalJSON() ([]byte, error) {
	type head struct {
		Event     string `json:"event"`
		PatientID string `json:"patient_id"`
	}
	h := head{e.Kind, e.PatientID}
	switch e.Kind {
	case EventVitals:
		return json.Marshal(struct {
			head
			Reading
		}{h, e.Reading})
	case EventAction:
		return json.Marshal(struct {
			head
			ActionRecord
		}{h, e.Action})
	case EventSafety:
		return json.Marshal(struct {
			head
			SafetyRecord
		}{h, e.Safety})
	case EventState:
		return json.Marshal(struct {
			head
			StateChange
		}{h, e.State})
	case EventOrder:
		return json.Marshal(struct {
			head
			OrderRecord
		}{h, e.Order})
	case EventAlarm, EventEscalation:
		return json.Marshal(struct {
			head
			AlertRecord
		}{h, e.Alert})
	case EventECG:
		return json.Marshal(struct {
			head
			Strip
		}{h, e.Strip})
	}
	return json.Marshal(struct {
		head
		ErrorRecord
	}{h, e.Error})
}

// SimTime formats sim seconds as mm:ss (or h:mm:ss), as the review, the prompts and the notes
// show times.
func SimTime(sec float64) string {
	var buf [16]byte
	return string(appendSimTime(buf[:0], sec))
}

// appendSimTime writes sec as SimTime does.
func appendSimTime(b []byte, sec float64) []byte {
	s := int64(int(sec))
	if s >= 3600 {
		b = append(strconv.AppendInt(b, s/3600, 10), ':')
		return appendTwoDigits(append(appendTwoDigits(b, s%3600/60), ':'), s%60)
	}
	return appendTwoDigits(append(appendTwoDigits(b, s/60), ':'), s%60)
}

// appendTwoDigits writes n as "%02d" does: a leading zero on 0 to 9.
func appendTwoDigits(b []byte, n int64) []byte {
	if n >= 0 && n < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, n, 10)
}

// String is the action as the review, memory and the prompts write it: "oxygen nrb 15 L/min",
// "medication glucose 150 mL of 10% IV" (a dose as the trainee wrote it).
func (a ActionRecord) String() string {
	parts := []string{strings.ReplaceAll(string(a.Kind), "_", " ")}
	add := func(ok bool, format string, v any) {
		if ok {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	add(a.Drug != "", "%s", sc.DrugLabel(a.Drug))
	add(a.Drug != "" && !a.WrittenDose().IsZero(), "%s", a.WrittenDose())
	add(a.Route != "", "%s", a.Route)
	add(a.Device != "", "%s", a.Device)
	add(a.FlowLPM > 0, "%g L/min", a.FlowLPM)
	add(a.FiO2 > 0, "%g %%", a.FiO2)
	add(a.Drug == "" && a.VolumeML > 0, "%g mL", a.VolumeML)
	add(a.Drug == "" && a.Dose.PerKg, "(%s)", a.Dose) // fluids by weight: "140 mL (10 mL/kg)"
	add(a.Topic != "", "about %s", strings.ReplaceAll(a.Topic, "_", " "))
	add(a.Test != "", "%s", sc.Tests[a.Test])
	add(a.Position != "", "%s", a.Position)
	add(a.Kind == sc.KindGlucoseCheck, "→ %g mmol/L", a.Glucose)
	add(a.EnergyJ > 0, "%g J", a.EnergyJ)
	add(a.Rate > 0, "at %d/min", a.Rate)
	add(a.Quality != "", "(%s)", a.Quality)
	add(a.Rhythm != "", "%q", a.Rhythm)
	add(a.Cause != "", "%s", strings.ReplaceAll(a.Cause, "_", " "))
	return strings.Join(parts, " ")
}

// String is the reading as the review and the prompts write it, with its NEWS2.
func (r Reading) String() string {
	air := "air"
	if r.OnOxygen {
		air = "O2"
	}
	s := fmt.Sprintf("HR %d, RR %d, SpO2 %d%% (%s), BP %d/%d, T %.1f, GCS %d (%s)",
		r.HR, r.RR, r.SpO2, air, r.SBP, r.DBP, r.TempC, r.GCS, r.AVPU)
	if r.NoOutput {
		s = fmt.Sprintf("no pulse, BP unrecordable, no SpO2 trace (%s), RR %d, T %.1f, GCS %d (%s)", air, r.RR, r.TempC, r.GCS, r.AVPU)
	}
	if r.EtCO2 > 0 {
		s += fmt.Sprintf(", EtCO2 %d", r.EtCO2)
	}
	return s + " — " + r.Score().String()
}
