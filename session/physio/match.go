package physio

import (
	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Matches reports whether a fits m. Empty match fields accept anything; a
// minimum fails when the action does not state the value, a maximum passes.
func Matches(m sc.Match, a action.Action) bool {
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
