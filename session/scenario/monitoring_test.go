package scenario

import (
	"strings"
	"testing"
)

func TestParseAlarmLimit(t *testing.T) {
	cases := []struct {
		in   string
		want AlarmLimit
		err  string
	}{
		{"spo2<88", AlarmLimit{Vital: SpO2, Below: true, Value: 88}, ""},
		{"HR > 140", AlarmLimit{Vital: HR, Value: 140}, ""},
		{" sbp<90 ", AlarmLimit{Vital: SBP, Below: true, Value: 90}, ""},
		{"etco2>60", AlarmLimit{Vital: EtCO2, Value: 60}, ""},
		{"spo2 88", AlarmLimit{}, "needs < or >"},
		{"gcs<9", AlarmLimit{}, "a monitor alarms on hr, rr, spo2, sbp, dbp, etco2"},
		{"spo2<abc", AlarmLimit{}, "needs a number from 40 to 100"},
		{"hr>900", AlarmLimit{}, "needs a number"},
		{"spo2<NaN", AlarmLimit{}, "needs a number"},
	}
	for _, c := range cases {
		got, err := ParseAlarmLimit(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one saying %q", c.in, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%q = %+v, %v; want %+v", c.in, got, err, c.want)
		case c.err == "" && got.String() != strings.ToLower(strings.ReplaceAll(strings.TrimSpace(c.in), " ", "")):
			t.Errorf("%q writes back as %q", c.in, got.String())
		}
	}
}

func TestAlarmLimitCrossed(t *testing.T) {
	low, high := AlarmLimit{Vital: SpO2, Below: true, Value: 90}, AlarmLimit{Vital: HR, Value: 130}
	for _, c := range []struct {
		l    AlarmLimit
		v    float64
		want bool
	}{{low, 89, true}, {low, 90, false}, {high, 131, true}, {high, 130, false}} {
		if got := c.l.Crossed(c.v); got != c.want {
			t.Errorf("%s at %g: crossed %v, want %v", c.l, c.v, got, c.want)
		}
	}
}

func TestValidateMonitoring(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"monitoring: {mode: continuous, alarms: [spo2<86, hr>140]}\n", ""},
		{"monitoring: {mode: hourly}\n", `monitoring mode "hourly" must be one of`},
		{"monitoring: {alarms: [spo2 86]}\n", `"spo2 86" is not an alarm limit`},
	}
	for _, c := range cases {
		errs := Validate([]byte(minimal + c.yaml))
		got := ""
		for _, e := range errs {
			got += e.Error() + "\n"
		}
		if (c.want == "") != (len(errs) == 0) || !strings.Contains(got, c.want) {
			t.Errorf("%s: errors %q, want %q", strings.TrimSpace(c.yaml), got, c.want)
		}
	}
}

func FuzzParseAlarmLimit(f *testing.F) {
	for _, s := range []string{"spo2<88", "HR > 140", "etco2>60", "sbp<", "<90", "rr<1e9", "spo2<NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseAlarmLimit(s)
		if err != nil {
			return
		}
		back, err := ParseAlarmLimit(l.String())
		if err != nil || back != l {
			t.Fatalf("%q reads as %+v, written %q, read back as %+v (%v)", s, l, l.String(), back, err)
		}
	})
}
