package session

import (
	"fmt"

	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// confirmArrest is what the nurse says of an arrest action: the engine's record of it, never a
// decision of the team's. Naming a rhythm and looking at it are the trainee's; nothing is said.
func confirmArrest(a physio.ActionRecord) string {
	switch a.Kind {
	case sc.KindArrestCall:
		return "Arrest call out on 2222; the team is on its way."
	case sc.KindCPR:
		if a.Rate > 0 {
			return fmt.Sprintf("Compressions going, %d a minute.", a.Rate)
		}
		return "Compressions going."
	case sc.KindStopCPR:
		return "Hands off."
	case sc.KindPads:
		return "Pads on."
	case sc.KindCharge:
		return fmt.Sprintf("Charging to %g J, compressions continuing.", energy(a))
	case sc.KindShock:
		return fmt.Sprintf("Stand clear, oxygen away… shock delivered at %g J.", energy(a))
	case sc.KindCauses:
		return "Going through the 4 Hs and 4 Ts."
	case sc.KindTreatCause:
		if c := sc.ALS().Cause(a.Cause); c != nil {
			return "Done: treating " + c.Name + " — " + c.Treatment + "."
		}
	case sc.KindStopResus:
		return "Resuscitation stopped."
	case sc.KindBPTarget:
		return "BP target noted: systolic above 100, MAP above 65."
	case sc.KindTempControl:
		return "Temperature control in place: no fever."
	case sc.KindRefer:
		return "Referral made."
	}
	return ""
}

func energy(a physio.ActionRecord) float64 {
	if a.EnergyJ > 0 {
		return a.EnergyJ
	}
	return physio.DefaultEnergy
}
