package physio

import sc "github.com/ward-sim/ward/session/scenario"

// matches reports whether a fits m. Empty match fields accept anything; a
// minimum fails when the action does not state the value, a maximum passes.
func matches(m sc.Match, a Action) bool {
	if !m.Kind.Has(string(a.Kind)) ||
		!oneOf(m.Drug, a.Drug) || !oneOf(m.Route, a.Route) || !oneOf(m.Device, a.Device) ||
		!oneOf(m.Topic, a.Topic) || !oneOf(m.Test, a.Test) || !oneOf(m.Position, a.Position) ||
		!oneOf(m.Region, a.Region) || !oneOf(m.Team, a.Team) ||
		!oneOf(m.Rhythm, a.Rhythm) {
		return false
	}
	if len(m.Class) > 0 && !inClass(a.Drug, m.Class) {
		return false
	}
	fio2 := a.DeliveredFiO2()
	return within(a.DoseMg, m.MinDoseMg, m.MaxDoseMg) && within(a.VolumeML, m.MinVolumeML, 0) &&
		within(fio2, m.MinFiO2, m.MaxFiO2) && within(a.Target[1], 0, m.MaxTarget)
}

func oneOf(names sc.Names, v string) bool { return len(names) == 0 || names.Has(v) }

func within(v, lo, hi float64) bool { return (lo == 0 || v >= lo) && (hi == 0 || v <= hi) }

func inClass(drug string, classes sc.Names) bool {
	d, ok := sc.LookupDrug(drug)
	if !ok {
		return false
	}
	for _, c := range classes {
		if d.Is(c) {
			return true
		}
	}
	return false
}

// DeliveredFiO2 estimates the inspired oxygen (percent) an oxygen action
// gives: the stated percentage if any, else from device and flow using the
// usual teaching figures (nasal cannula 24 % at 1 L/min plus 4 % per litre;
// a reservoir mask about 85 %). 0 means it cannot be told.
func (a Action) DeliveredFiO2() float64 {
	if a.Kind != sc.KindOxygen {
		return 0
	}
	if a.FiO2 > 0 {
		return a.FiO2
	}
	f := a.FlowLPM
	switch a.Device {
	case "nasal_cannula":
		return cannula(f)
	case "simple_mask":
		if f == 0 {
			return 40
		}
		return min(60, 20+4*f)
	case "nrb":
		if f > 0 && f < 10 {
			return 60
		}
		return 85
	case "high_flow":
		return 60
	case "":
		switch {
		case f == 0:
			return 0
		case f <= 4:
			return cannula(f)
		case f < 10:
			return min(60, 20+4*f)
		}
		return 85
	}
	return 0
}

func cannula(flow float64) float64 {
	if flow == 0 {
		return 0
	}
	return min(44, 20+4*flow)
}
