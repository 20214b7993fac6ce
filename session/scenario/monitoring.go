package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Monitoring is how a patient is watched from arrival: by nobody, by a nurse's observations at the
// interval their NEWS2 calls for, or on a continuous monitor; and the alarm limits that differ from
// the adult defaults for this patient (a CO2 retainer's lower SpO2 target, say).
type Monitoring struct {
	Mode   string       `yaml:"mode"`   // one of MonitoringModes; "" is intermittent
	Alarms []AlarmLimit `yaml:"alarms"` // "spo2<86"
}

// Monitoring modes.
const (
	MonitorNone         = "none"
	MonitorIntermittent = "intermittent"
	MonitorContinuous   = "continuous"
)

// MonitoringModes are the modes a scenario may name.
var MonitoringModes = []string{MonitorNone, MonitorIntermittent, MonitorContinuous}

// AlarmVitals are the vitals a bedside monitor measures and can alarm on.
var AlarmVitals = []Vital{HR, RR, SpO2, SBP, DBP, EtCO2}

// AlarmLimit is one alarm threshold: the monitor alarms when Vital is below Value (Below) or above
// it. It is written "spo2<88" or "hr>140".
type AlarmLimit struct {
	Vital Vital
	Below bool
	Value float64
}

// ParseAlarmLimit reads a limit such as "spo2<88", "HR > 140" or "sbp<90".
func ParseAlarmLimit(s string) (AlarmLimit, error) {
	name, value, below := strings.Cut(s, "<")
	if !below {
		var above bool
		if name, value, above = strings.Cut(s, ">"); !above {
			return AlarmLimit{}, fmt.Errorf("alarm limit %q needs < or >, as in spo2<88 or hr>140", s)
		}
	}
	v, ok := ParseVital(strings.ToLower(strings.TrimSpace(name)))
	if !ok || !slices.Contains(AlarmVitals, v) {
		return AlarmLimit{}, fmt.Errorf("a monitor alarms on %s, not %q", alarmVitalNames(), strings.TrimSpace(name))
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	lim := Range[v]
	if err != nil || !(x >= lim[0] && x <= lim[1]) { // NaN is in no range
		return AlarmLimit{}, fmt.Errorf("alarm limit %q needs a number from %g to %g", s, lim[0], lim[1])
	}
	return AlarmLimit{Vital: v, Below: below, Value: x}, nil
}

// Crossed reports whether value is beyond the limit.
func (l AlarmLimit) Crossed(value float64) bool {
	if l.Below {
		return value < l.Value
	}
	return value > l.Value
}

// String writes the limit as ParseAlarmLimit reads it.
func (l AlarmLimit) String() string {
	op := ">"
	if l.Below {
		op = "<"
	}
	return l.Vital.String() + op + strconv.FormatFloat(l.Value, 'f', -1, 64)
}

// MarshalText and UnmarshalText keep a limit in the store and in YAML as it is written.
func (l AlarmLimit) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

func (l *AlarmLimit) UnmarshalText(text []byte) error {
	parsed, err := ParseAlarmLimit(string(text))
	if err != nil {
		return err
	}
	*l = parsed
	return nil
}

// UnmarshalYAML reads a limit with the line of any mistake, and lets decoding go on.
func (l *AlarmLimit) UnmarshalYAML(node *yaml.Node) error {
	parsed, err := ParseAlarmLimit(node.Value)
	if node.Kind != yaml.ScalarNode || err != nil {
		return typeError(node, fmt.Sprintf("%q is not an alarm limit such as spo2<88", node.Value))
	}
	*l = parsed
	return nil
}

func alarmVitalNames() string {
	names := make([]string, len(AlarmVitals))
	for i, v := range AlarmVitals {
		names[i] = v.String()
	}
	return strings.Join(names, ", ")
}

func (c *checker) checkMonitoring(m Monitoring) {
	if m.Mode != "" && !slices.Contains(MonitoringModes, m.Mode) {
		c.at("monitoring.mode", "monitoring mode %q must be one of %v", m.Mode, MonitoringModes)
	}
}
