package aar

import (
	"slices"
	"strings"
	"unicode"

	sc "github.com/ward-sim/ward/session/scenario"
)

// A debrief names a point when it uses a word from each of the point's groups: the drug (any
// of its names) or the kind of action, and the route when the route is the point. Words match
// at the start of a word, so "fluid" names "fluids" and "allerg" names "allergies".

// kindWords are how a debrief may name each kind of action.
var kindWords = map[sc.ActionKind][]string{
	sc.KindCheckVitals:        {"vital", "obs", "observation", "news2"},
	sc.KindAttachMonitor:      {"monitor"},
	sc.KindGlucoseCheck:       {"glucose", "sugar", "bm", "cbg"},
	sc.KindECG:                {"ecg", "12-lead", "12 lead", "ekg"},
	sc.KindExamine:            {"exam", "neurovascular", "circulation", "auscultat", "listen"},
	sc.KindPupils:             {"pupil"},
	sc.KindTest:               {"test", "investigation", "blood"},
	sc.KindOxygen:             {"oxygen", "o2"},
	sc.KindStopOxygen:         {"oxygen", "o2"},
	sc.KindMedication:         {"medic", "drug"},
	sc.KindIVAccess:           {"iv access", "intravenous access", "cannula", "iv line", "io access"},
	sc.KindFluids:             {"fluid", "bolus", "crystalloid", "saline"},
	sc.KindAirway:             {"airway", "jaw thrust", "opa", "npa", "suction"},
	sc.KindVentilate:          {"ventilat", "bag-valve", "bag valve", "bvm", "breaths"},
	sc.KindPosition:           {"position", "sit", "recovery", "flat", "upright", "lateral", "left side", "tilt"},
	sc.KindSplint:             {"splint"},
	sc.KindTargetSats:         {"target"},
	sc.KindRefer:              {"refer", "call", "pci", "cath lab", "reperfusion", "escalat", "pre-alert", "prealert"},
	sc.KindVagal:              {"vagal", "valsalva"},
	sc.KindCardioversion:      {"cardiover", "synchronised", "synchronized", "dc shock"},
	sc.KindPacing:             {"pacing", "paced", "pace"},
	sc.KindHaemorrhageControl: {"haemorrhage control", "bleeding", "tourniquet", "binder", "pressure", "fundus", "fundal", "bimanual"},
	sc.KindFeed:               {"carbohydrate", "meal", "food", "eat", "sandwich", "snack"},
	// the cardiac arrest
	sc.KindArrestCall:  {"arrest", "help", "2222", "crash"},
	sc.KindCPR:         {"compression", "cpr"},
	sc.KindStopCPR:     {"compression", "cpr", "pause"},
	sc.KindPads:        {"pads", "defib"},
	sc.KindCharge:      {"charg"},
	sc.KindShock:       {"shock", "defib"},
	sc.KindRhythmCheck: {"rhythm"},
	sc.KindPulseCheck:  {"pulse"},
	sc.KindNameRhythm:  {"rhythm", "vf", "pea", "asystole"},
	sc.KindCauses:      {"cause", "hs and", "4 h"},
	sc.KindTreatCause:  {"cause", "decompress", "thrombolys", "thoracostomy", "warming", "rewarm"},
	sc.KindStopResus:   {"stop", "death"},
	sc.KindBPTarget:    {"blood pressure", "bp", "map", "systolic"},
	sc.KindTempControl: {"temperature", "fever"},
}

// topicWords are how a debrief may name what was asked.
var topicWords = map[string][]string{
	"allergies": {"allerg"}, "medications": {"medication", "meds", "medicine", "tablets"},
	"history": {"history"}, "onset": {"onset", "what happened", "how long", "when it started"}, "pain": {"pain"},
	"symptoms": {"symptom"}, "last_meal": {"meal", "ate", "eaten", "feed"}, "social": {"social", "smok", "alcohol"},
}

// routeWords are how a debrief may name a route.
var routeWords = map[string][]string{
	"IM": {"im", "intramuscular"}, "IV": {"iv", "intravenous"}, "IO": {"io", "intraosseous"},
	"PO": {"po", "oral", "by mouth", "swallow"}, "SL": {"sl", "sublingual"}, "IN": {"intranasal", "nasal"},
	"NEB": {"neb"}, "SC": {"sc", "subcut"}, "PR": {"pr", "rectal"}, "BUCCAL": {"buccal", "oral"},
	"INH": {"inhal"},
}

// matchNames are the groups that name what a scenario match selects.
func matchNames(m sc.Match) [][]string {
	var groups [][]string
	var drugs []string
	for _, d := range m.Drug {
		drugs = append(drugs, drugNames(d)...)
	}
	for _, class := range m.Class {
		drugs = append(drugs, strings.ReplaceAll(class, "_", " "))
		for _, d := range sc.Drugs() {
			if d.Is(class) {
				drugs = append(drugs, drugNames(d.Name)...)
			}
		}
	}
	switch {
	case len(drugs) > 0:
		groups = append(groups, drugs)
	case len(m.Topic) > 0:
		var words []string
		for _, t := range m.Topic {
			words = append(words, topicWords[t]...)
		}
		groups = append(groups, words)
	case len(m.Test) > 0:
		var words []string
		for _, t := range m.Test {
			words = append(words, strings.ToLower(sc.Tests[t]))
		}
		groups = append(groups, words)
	default:
		var words []string
		for _, k := range m.Kind {
			words = append(words, kindWords[sc.ActionKind(k)]...)
		}
		groups = append(groups, words)
	}
	var routes []string
	for _, r := range m.Route {
		routes = append(routes, routeWords[r]...)
	}
	if len(routes) > 0 {
		groups = append(groups, routes)
	}
	return groups
}

// drugNames are a drug's catalogue name and aliases, as a debrief may write them.
func drugNames(name string) []string {
	d, ok := sc.LookupDrug(name)
	if !ok {
		return []string{strings.ToLower(name)}
	}
	out := []string{strings.ToLower(d.Name)}
	for _, a := range d.Aliases {
		out = append(out, strings.ToLower(a))
	}
	return out
}

// normalized is text as names are looked for in it: lower case, words separated by single
// spaces, with a space at each end.
func normalized(text string) string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
	return " " + strings.Join(fields, " ") + " "
}

func (p Point) namedIn(said string) bool {
	return !slices.ContainsFunc(p.names, func(group []string) bool {
		return !slices.ContainsFunc(group, func(w string) bool { return strings.Contains(said, strings.TrimRight(normalized(w), " ")) })
	})
}
