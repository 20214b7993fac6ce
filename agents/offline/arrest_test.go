package offline

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
)

// In a cardiac arrest the Monitor reads the zeros as findings, never as unmeasured.
func TestMonitorReadsAnArrest(t *testing.T) {
	got := monitor(&[]agents.Reading{{T: 60, Vitals: memory.Vitals{GCS: 3, Temp: 36.1}, AVPU: "U", EtCO2: 22, NoOutput: true}})
	for _, want := range []string{"no pulse", "no recordable blood pressure", "no SpO2 trace", "not breathing", "EtCO2 22"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "Not measured") {
		t.Errorf("the arrest's zeros read as unmeasured: %q", got)
	}
}
