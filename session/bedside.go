package session

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// The bedside is what ward says in a turn besides the team, each in the voice it belongs to: the
// nurse confirms what the trainee did, a relative answers for a patient who cannot, the engine's
// measurements are read out by the Monitor. It also holds the bound on what the patient can say.

// nurseAgent is the voice of the bedside nurse, who confirms what was done and escalates a
// worrying observation; a monitor alarm is the Monitor's.
const nurseAgent = "Nurse"

// confirmations are what was done this turn, in plain words: what the nurse says, and what the
// Patient is told was done to them. Measurements are the Monitor's to report.
func confirmations(events []physio.Event) []string {
	var out []string
	for _, ev := range events {
		if ev.Kind != physio.EventAction {
			continue
		}
		if line := confirm(ev.Action); line != "" && !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return out
}

var deviceWords = map[string]string{
	"nrb": "a non-rebreather mask", "nasal_cannula": "nasal cannulae", "venturi": "a venturi mask",
	"simple_mask": "a simple face mask", "high_flow": "high-flow nasal oxygen", "bvm": "a bag-valve mask",
	"opa": "an oropharyngeal airway", "npa": "a nasopharyngeal airway", "jaw_thrust": "a jaw thrust",
	"head_tilt": "a head tilt and chin lift", "suction": "suction",
	"sga": "a supraglottic airway (i-gel)", "ett": "a tracheal tube",
}

var positionWords = map[string]string{
	"upright": "sitting upright", "recovery": "in the recovery position", "supine": "lying flat",
	"legs_raised": "lying with legs raised",
}

func confirm(a physio.ActionRecord) string {
	switch a.Kind {
	case sc.KindOxygen:
		return "Oxygen on" + oxygenDetail(a) + "."
	case sc.KindStopOxygen:
		return "Oxygen off."
	case sc.KindMedication:
		if wait := a.InAt - a.T; wait > 0 {
			return fmt.Sprintf("Drawn up: %s, to go in once access is in (about %g s).", dose(a), wait)
		}
		return "Given: " + dose(a) + "."
	case sc.KindIVAccess:
		return accessLine(a)
	case sc.KindFluids:
		return fluidsLine(a)
	case sc.KindAirway:
		if w, ok := deviceWords[a.Device]; ok {
			return "Airway opened with " + w + "."
		}
		return "Airway opened."
	case sc.KindVentilate:
		return "Ventilating with a bag-valve mask."
	case sc.KindPosition:
		if w, ok := positionWords[a.Position]; ok {
			return "The patient is " + w + "."
		}
		return "The patient is repositioned."
	case sc.KindSplint:
		return "Splint on."
	case sc.KindAttachMonitor:
		return "Monitor on."
	case sc.KindRefer:
		return teamCalls[a.Team]
	case sc.KindTargetSats:
		said := fmt.Sprintf("Target saturation %g–%g %% prescribed: NEWS2 on Scale %d.", a.Target[0], a.Target[1], max(1, a.Scale))
		if a.Target[1] <= 92 && a.Scale < 2 {
			said += " Scale 2 once a blood gas, or the history, documents hypercapnia."
		}
		return said
	case sc.KindVagal:
		return "Vagal manoeuvre done: a modified Valsalva, blowing into a syringe then legs up."
	case sc.KindCardioversion:
		return "Synchronised DC shock delivered."
	case sc.KindPacing:
		return "Pads on and pacing: capture confirmed."
	case sc.KindFeed:
		return "Something to eat: a sandwich and a drink, long-acting carbohydrate."
	}
	return confirmArrest(a)
}

// accessLine is the nurse siting access, which takes time: IV or IO drugs wait until it is in.
func accessLine(a physio.ActionRecord) string {
	what := "a cannula"
	if a.Route == "IO" {
		what = "an IO needle"
	}
	if wait := a.AccessIn - a.T; wait > 0 {
		return fmt.Sprintf("Siting %s — access in about %g s.", what, wait)
	}
	return "IV access in."
}

// fluidsLine is the nurse's word on fluids: the volume, and by weight how it was worked out; set
// up to run once access is in when it is still being sited.
func fluidsLine(a physio.ActionRecord) string {
	what, when := "Fluids running", ""
	if wait := a.InAt - a.T; wait > 0 {
		what, when = "Fluids up", fmt.Sprintf(", to run once access is in (about %g s)", wait)
	}
	switch {
	case a.Dose.PerKg:
		return fmt.Sprintf("%s: %g mL (%s)%s.", what, a.VolumeML, a.Dose, when)
	case a.VolumeML > 0:
		return fmt.Sprintf("%s: %g mL%s.", what, a.VolumeML, when)
	}
	return what + when + "."
}

// teamCalls are the nurse's words on calling each team.
var teamCalls = map[string]string{
	"pci": "Calling the cath lab: primary PCI referral made.", "critical_care": "Calling critical care.",
	"senior": "Calling for senior help.",
}

func oxygenDetail(a physio.ActionRecord) string {
	var parts []string
	if w, ok := deviceWords[a.Device]; ok {
		parts = append(parts, w)
	}
	if a.FlowLPM > 0 {
		parts = append(parts, fmt.Sprintf("%g L/min", a.FlowLPM))
	}
	if a.FiO2 > 0 {
		parts = append(parts, fmt.Sprintf("%g %%", a.FiO2))
	}
	if len(parts) == 0 {
		return ""
	}
	return " by " + strings.Join(parts, " at ")
}

func dose(a physio.ActionRecord) string {
	return strings.Join(strings.Fields(sc.DrugLabel(a.Drug)+" "+a.WrittenDose().String()+" "+a.Route), " ")
}

// asksEtCO2 finds a request for end-tidal CO2, which only capnography on the monitor measures.
var asksEtCO2 = regexp.MustCompile(`(?i)\b(?:etco2|end[ -]?tidal|capnograph\w*)\b`)

// results are what this turn's measurements beyond the vitals found, and what was asked for but
// cannot be measured as things stand.
func results(x *examination) []agents.Result {
	e := x.engine
	var out []agents.Result
	var last *physio.Reading
	for _, ev := range x.events {
		switch ev.Kind {
		case physio.EventAction:
			if r, ok := e.ResultOf(ev.Action); ok && !r.Exam {
				out = append(out, agents.Result{T: r.T - e.Admitted(), Name: r.Name, Value: r.Value})
			}
		case physio.EventVitals:
			last = &ev.Reading
		}
	}
	if last != nil && last.EtCO2 == 0 && asksEtCO2.MatchString(x.text) {
		out = append(out, agents.Result{T: last.T - e.Admitted(), Name: "EtCO2",
			Value: "not measured: it needs waveform capnography — attach the monitor"})
	}
	return out
}

// refusals are the nurse's words on this turn's orders that could not be given by their route.
func refusals(events []physio.Event) []string {
	var out []string
	for _, ev := range events {
		if ev.Kind == physio.EventOrder && ev.Order.Refused && !slices.Contains(out, ev.Order.Say) {
			out = append(out, ev.Order.Say)
		}
	}
	return out
}

// examined is what this turn's bedside examinations found, region by region, from the engine's
// findings for the patient's state now.
func examined(x *examination) []agents.Result {
	var out []agents.Result
	for _, ev := range x.events {
		if ev.Kind != physio.EventAction {
			continue
		}
		if r, ok := x.engine.ResultOf(ev.Action); ok && r.Exam {
			out = append(out, agents.Result{T: r.T - x.engine.Admitted(), Name: r.Name, Value: r.Value})
		}
	}
	return out
}

// examinationLine is what the trainee finds on examining, as the nurse beside them says it: the
// engine's findings word for word, never the patient's voice.
func examinationLine(found []agents.Result) string {
	if len(found) == 0 {
		return ""
	}
	parts := make([]string, len(found))
	for i, r := range found {
		parts[i] = r.Name + ": " + r.Value
	}
	return "On examination — " + strings.Join(parts, "; ") + "."
}

// bystanderSource names a bystander as the chat and the notes do: "Sarah Harris, his wife".
func bystanderSource(b *sc.Bystander) string { return b.Name + ", " + b.Relation }

// boundSpeech holds a Patient reply to what the patient can say now. A reply that says more is
// replaced by what the trainee sees, in the third person, from the engine.
func boundSpeech(reply string, speech physio.Speech, looks string) (string, bool) {
	if agents.WithinSpeech(reply, string(speech)) {
		return reply, false
	}
	return agents.Described(looks), true
}

// reportLines are the engine's own lines for this turn's measurements, each with the values a
// readout must mention: what ward adds when a Monitor's reply leaves one out.
func reportLines(x *examination) (lines []string, needles [][]string) {
	for _, ev := range x.events {
		if ev.Kind == physio.EventVitals {
			r := ev.Reading
			lines = append(lines, fmt.Sprintf("Measured at %s: %s.", memory.Clock(r.T-x.engine.Admitted()), r.String()))
			needles = append(needles, []string{fmt.Sprint(r.HR), fmt.Sprint(r.RR), fmt.Sprint(r.SpO2), fmt.Sprint(r.SBP)})
			break // a check and the monitor's first reading in one turn agree
		}
	}
	for _, r := range x.results {
		lines = append(lines, fmt.Sprintf("%s: %s.", agents.Capitalized(r.Name), r.Value))
		needles = append(needles, []string{firstValue(r.Value)})
	}
	return lines, needles
}

// firstValue is what identifies a result in a readout: its number, or its first words.
var numberPattern = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?`)

func firstValue(v string) string {
	if n := numberPattern.FindString(v); n != "" {
		return n
	}
	first, _, _ := strings.Cut(v, ",")
	first, _, _ = strings.Cut(first, ";")
	return strings.ToLower(strings.TrimSpace(first))
}

// unreported are the engine's lines a readout leaves out.
func unreported(reply string, lines []string, needles [][]string) []string {
	said := " " + strings.ToLower(strings.Join(strings.FieldsFunc(reply, func(r rune) bool {
		return r == ' ' || r == ',' || r == ':' || r == ';' || r == '\n' || r == '(' || r == ')' || r == '%'
	}), " ")) + " "
	var out []string
	for i, l := range lines {
		for _, n := range needles[i] {
			if !strings.Contains(said, " "+n) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

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
		if c := sc.ALS().Cause(a.Cause); c != nil && a.Side != "" {
			return "Done, on the " + a.Side + ": treating " + c.Name + " — " + c.Treatment + "."
		} else if c != nil {
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
