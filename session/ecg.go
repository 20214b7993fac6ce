package session

import (
	"time"

	"github.com/ward-sim/ward/session/physio"
)

// ECGTrace is the active patient's monitor trace, which the vitals pane draws as a strip. It
// carries no rhythm name a screen could show: reading the rhythm is the trainee's job.
type ECGTrace struct{ tr physio.Trace }

// Samples fills dst with the trace from sim time from to to, evenly spaced, in millivolts.
func (e ECGTrace) Samples(dst []float64, from, to time.Duration) []float64 {
	return e.tr.Samples(dst, from.Seconds(), to.Seconds())
}

// ecgTrace is the patient's trace while a monitor is on them, or nil.
func ecgTrace(p PatientView) *ECGTrace {
	if !p.Monitored {
		return nil
	}
	return &ECGTrace{p.Trace}
}
