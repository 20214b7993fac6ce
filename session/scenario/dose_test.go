package scenario

import (
	"math"
	"testing"
)

func TestParseDose(t *testing.T) {
	mgPerML := func(v float64, label string) Strength { return Strength{Amount: v, Unit: Milligrams, Label: label} }
	cases := []struct {
		in   string
		want Dose
	}{
		{"0.5 mg", Dose{Amount: 0.5, Unit: Milligrams}},
		{"500 micrograms", Dose{Amount: 0.5, Unit: Milligrams}},
		{"500 mcg", Dose{Amount: 0.5, Unit: Milligrams}},
		{"500mcg", Dose{Amount: 0.5, Unit: Milligrams}},
		{"500 µg", Dose{Amount: 0.5, Unit: Milligrams}},
		{"1 g", Dose{Amount: 1000, Unit: Milligrams}},
		{"1 gram of paracetamol", Dose{Amount: 1000, Unit: Milligrams}},
		{".5 mg", Dose{Amount: 0.5, Unit: Milligrams}},
		{"10 units", Dose{Amount: 10, Unit: Units}},
		{"10 iu of actrapid", Dose{Amount: 10, Unit: Units}},
		{"2 puffs", Dose{Amount: 2, Unit: Puffs}},
		{"two puffs (100 micrograms each)", Dose{Amount: 2, Unit: Puffs,
			Strength: Strength{Amount: 0.1, Unit: Milligrams, Puff: true, Label: "100 micrograms/puff"}}},
		{"5 mg nebulised", Dose{Amount: 5, Unit: Milligrams}},
		{"give adrenaline 50 mg IV", Dose{Amount: 50, Unit: Milligrams}},
		{"300 mg IV over 20 minutes", Dose{Amount: 300, Unit: Milligrams, Infusion: true}},
		{"300 mg by infusion", Dose{Amount: 300, Unit: Milligrams, Infusion: true}},
		{"0.5 ml of 1:1000", Dose{VolumeML: 0.5, Strength: mgPerML(1, "1 in 1000")}},
		{"0.5 mL of 1 in 1,000 adrenaline", Dose{VolumeML: 0.5, Strength: mgPerML(1, "1 in 1000")}},
		{"10 ml of 1 in 10 000", Dose{VolumeML: 10, Strength: mgPerML(0.1, "1 in 10000")}},
		{"1:10,000 10 ml", Dose{VolumeML: 10, Strength: mgPerML(0.1, "1 in 10000")}},
		{"0.5 mL of 1 mg/mL adrenaline", Dose{VolumeML: 0.5, Strength: mgPerML(1, "1 mg/mL")}},
		{"1 mg/10 mL", Dose{Strength: mgPerML(0.1, "1 mg/10 mL")}},
		{"100 ml of 10% glucose", Dose{VolumeML: 100, Strength: mgPerML(100, "10%")}},
		{"50 ml 50% dextrose", Dose{VolumeML: 50, Strength: mgPerML(500, "50%")}},
		{"50 ml of d50", Dose{VolumeML: 50, Strength: mgPerML(500, "50%")}},
		{"150 mL glucose 10 per cent", Dose{VolumeML: 150, Strength: mgPerML(100, "10%")}},
		{"10 mL/kg", Dose{Amount: 10, Unit: Millilitres, PerKg: true}},
		{"2 ml per kg of 10% glucose", Dose{Amount: 2, Unit: Millilitres, PerKg: true, Strength: mgPerML(100, "10%")}},
		{"0.5 mg (0.5 mL of 1:1000)", Dose{Amount: 0.5, Unit: Milligrams, VolumeML: 0.5, Strength: mgPerML(1, "1 in 1000")}},
		{"1:1000 500 micrograms", Dose{Amount: 0.5, Unit: Milligrams, Strength: mgPerML(1, "1 in 1000")}},
		{"500 mg in 100 mL", Dose{Amount: 500, Unit: Milligrams, VolumeML: 100}},
		{"1.5 micrograms/kg", Dose{Amount: 0.0015, Unit: Milligrams, PerKg: true}},
		{"0.1 mg per kg", Dose{Amount: 0.1, Unit: Milligrams, PerKg: true}},
		{"100 units/mL", Dose{Strength: Strength{Amount: 100, Unit: Units, Label: "100 units/mL"}}},
		{"3 ml penthrox", Dose{VolumeML: 3}},
		{"1/2 mg", Dose{Amount: 0.5, Unit: Milligrams}},
		{"2 x 500 mg tablets", Dose{Amount: 1000, Unit: Milligrams}},
		{"1,000.5 units", Dose{Amount: 1000.5, Unit: Units}},
		{"10,000 units", Dose{Amount: 10000, Unit: Units}},
		{"1 litre", Dose{VolumeML: 1000}},
		// rates, times and decimal commas are not doses
		{"1 mg/min", Dose{}},
		{"0.1 micrograms/kg/min", Dose{}},
		{"10 ml/hour", Dose{}},
		// units by the hour are an infusion: insulin, heparin
		{"0.1 units/kg/hr", Dose{Amount: 0.1, Unit: Units, PerKg: true, PerHour: true}},
		{"6 units per hour", Dose{Amount: 6, Unit: Units, PerHour: true}},
		{"6 units/min", Dose{}},
		{"at 14:30 give it", Dose{}},
		{"10,5 mg", Dose{}},
		{"1/0 mg", Dose{}},
		{"2 100 mg", Dose{Amount: 100, Unit: Milligrams}},
		{"give some adrenaline", Dose{}},
		{"", Dose{}},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, ok := ParseDose(c.in)
			if !sameDose(got, c.want) {
				t.Errorf("ParseDose(%q) = %+v, want %+v", c.in, got, c.want)
			}
			if ok == c.want.IsZero() {
				t.Errorf("ParseDose(%q) ok = %v", c.in, ok)
			}
		})
	}
}

func TestDoseStringRoundTrips(t *testing.T) {
	for _, in := range []string{"0.5 mg", "0.5 mL of 1 in 1000", "100 ml of 10% glucose", "2 puffs of 100 micrograms/puff",
		"1.5 micrograms/kg", "10 units", "1 mg/10 mL", "500 mg in 100 mL", "3 mL", "10 mL/kg", "2 mL/kg of 10%"} {
		d, _ := ParseDose(in)
		back, ok := ParseDose(d.String())
		if !ok || !sameDose(back, d) {
			t.Errorf("%q → %q → %+v, want %+v", in, d.String(), back, d)
		}
	}
}

func TestDoseStringReadsNaturally(t *testing.T) {
	cases := map[string]string{
		"0.5 ml of 1:1000":      "0.5 mL of 1 in 1000",
		"100 ml of 10% glucose": "100 mL of 10%",
		"500 mcg":               "500 micrograms",
		"1 g":                   "1 g",
		"1200 mg":               "1.2 g",
		"20 g":                  "20 g",
		"1.5 mcg/kg":            "1.5 micrograms/kg",
	}
	for in, want := range cases {
		d, _ := ParseDose(in)
		if got := d.String(); got != want {
			t.Errorf("ParseDose(%q).String() = %q, want %q", in, got, want)
		}
	}
}

// FuzzParseDose: any text parses without panicking into finite, non-negative
// values, and what the dose writes reads back as the same dose.
func FuzzParseDose(f *testing.F) {
	for _, s := range []string{"0.5 mg", "500 micrograms", "0.5 ml of 1:1000", "0.5 mL of 1 mg/mL adrenaline",
		"100 ml of 10% glucose", "50 ml 50% dextrose", "1 g", "10 units", "2 puffs", "5 mg nebulised",
		"1 in 10 000", "two puffs (100 micrograms each)", "1.5 mcg/kg", "1 mg/min", "10,000 units", "d50",
		"99999999999 mg", "1:99", "0.0000001 mg", "1 mg/0 mL", "1 mg/0.0000001 mL", "1/3 mg", "3 x 0.5 mg",
		"0.1 units/kg/hr", "6 units per hour", "1e9 units/h", "units/kg/h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseDose(s)
		for _, v := range []float64{d.Amount, d.VolumeML, d.Strength.Amount} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("ParseDose(%q) = %+v: a value is not finite and non-negative", s, d)
			}
		}
		if ok != !d.IsZero() {
			t.Fatalf("ParseDose(%q) ok = %v for %+v", s, ok, d)
		}
		if !ok {
			return
		}
		back, ok := ParseDose(d.String())
		if !ok || !sameDose(back, d) {
			t.Fatalf("ParseDose(%q) = %+v writes %q, which reads back as %+v", s, d, d.String(), back)
		}
	})
}

// sameDose compares doses up to the rounding of written numbers.
func sameDose(a, b Dose) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)) }
	return near(a.Amount, b.Amount) && a.Unit == b.Unit && a.PerKg == b.PerKg && a.PerHour == b.PerHour && near(a.VolumeML, b.VolumeML) &&
		near(a.Strength.Amount, b.Strength.Amount) && a.Strength.Unit == b.Strength.Unit &&
		a.Strength.Puff == b.Strength.Puff && a.Strength.Label == b.Strength.Label
}
