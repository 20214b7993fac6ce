package memory

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Record adds a fact the engine observed: a measured vitals set, an action, a state change, a
// disclosure made because the trainee asked, a scene event, an error. Engine events are trusted
// for content; Record only refuses shapes that would make the memory unreadable later.
func (m *Memory) Record(c Category, it Item) error {
	slot := m.slot(c)
	if slot == nil {
		return fmt.Errorf("memory: unknown category %q", c)
	}
	if !finite(it.T) {
		return fmt.Errorf("memory: %s at non-finite sim time", c)
	}
	it.Text = strings.TrimSpace(it.Text)
	if err := checkShape(c, &it); err != nil {
		return err
	}
	*slot = append(*slot, it)
	return nil
}

func checkShape(c Category, it *Item) error {
	switch c {
	case VitalsMeasurements:
		if it.Vitals == nil || *it.Vitals == (Vitals{}) {
			return errors.New("memory: a vitals measurement needs at least one value")
		}
		if !it.Vitals.finite() {
			return errors.New("memory: vitals must be finite numbers")
		}
		return nil
	case PatientDisclosures:
		it.Topic = NormalizeTopic(string(it.Topic))
		if it.Topic == "" {
			return errors.New("memory: a disclosure needs a topic")
		}
	}
	if it.Text == "" {
		return fmt.Errorf("memory: empty %s item", c)
	}
	return nil
}

func (v Vitals) finite() bool {
	for _, x := range []float64{v.HR, v.RR, v.SpO2, v.SBP, v.DBP, v.Temp, v.GCS} {
		if !finite(x) {
			return false
		}
	}
	return true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
