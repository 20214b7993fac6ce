package action

import (
	"fmt"
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

func TestParseArrestActions(t *testing.T) {
	cases := []struct {
		text string
		want string
	}{
		{"he's in cardiac arrest, put out a crash call and start CPR", "arrest_call cpr"},
		{"start compressions at 110 a minute", "cpr/110"},
		{"compressions are too shallow", "cpr/poor"},
		{"stop compressions for a rhythm check", "stop_cpr rhythm_check"},
		{"pads on", "pads attach_monitor"},
		{"this is VF, charge to 150 J", "name_rhythm:VF charge:150"},
		{"shock 150 J", "shock:150"},
		{"stand clear, shock at 200 joules", "stop_cpr shock:200"},
		{"resume CPR", "cpr"},
		{"it's PEA", "name_rhythm:PEA"},
		{"is it VF?", ""},
		{"don't shock, it's asystole", "name_rhythm:asystole"},
		{"give 1 mg adrenaline IV", "medication"},
		{"amiodarone 300 mg IV", "medication"},
		{"insert an i-gel", "airway:sga"},
		{"let's intubate and start waveform capnography", "airway:ett attach_monitor"},
		{"consider the 4 Hs and 4 Ts", "consider_causes"},
		{"needle decompression on the right", "treat_cause:tension_pneumothorax"},
		{"check for a pulse", "pulse_check"},
		{"is there a pulse?", "pulse_check"},
		{"has he got a pulse? is it VF?", "pulse_check"},
		{"don't stop compressions", "cpr"},
		{"compressions stopped", "stop_cpr"},
		{"CPR paused for the rhythm check", "stop_cpr rhythm_check"},
		{"stopping compressions", "stop_cpr"},
		{"crackles on the chest", "examine"},
		{"we'll stop resuscitation, time of death 14:02", "stop_resuscitation"},
		{"aim for a MAP above 65, temperature control and refer to ICU", "bp_target temperature_control refer"},
	}
	for _, tc := range cases {
		got := ""
		for i, a := range Parse(tc.text) {
			if i > 0 {
				got += " "
			}
			got += describe(a)
		}
		if got != tc.want {
			t.Errorf("%q → %q, want %q", tc.text, got, tc.want)
		}
	}
}

func describe(a Action) string {
	s := string(a.Kind)
	switch {
	case a.Kind == sc.KindCPR && a.Rate > 0:
		s += fmt.Sprintf("/%d", a.Rate)
	case a.Kind == sc.KindCPR && a.Quality != "":
		s += "/" + a.Quality
	case a.EnergyJ > 0:
		s += fmt.Sprintf(":%g", a.EnergyJ)
	case a.Rhythm != "":
		s += ":" + a.Rhythm
	case a.Device != "":
		s += ":" + a.Device
	case a.Cause != "":
		s += ":" + a.Cause
	}
	return s
}
