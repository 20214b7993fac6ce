package action

import sc "github.com/ward-sim/ward/session/scenario"

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
