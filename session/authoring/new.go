package authoring

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// keyNotes say, above each top-level key of a new scenario, what it is for.
var keyNotes = map[string]string{
	"id":                  "Unique id: lowercase letters, digits, - and _. The file is named ID.yaml, its review ID.review.md.",
	"title":               "The case's name, for educators. The trainee never sees it: it names the diagnosis.",
	"demographics":        "Who the patient is; bed is the default bed; weight_kg doses drugs given per kg (a child's must be set).",
	"chief_complaint":     "A few words, in the patient's terms.",
	"presentation":        "One line the trainee sees on arrival: no diagnosis, no state name, at most 110 characters.",
	"bystander":           "A relative who answers, from their own disclosures, what the patient is too unwell to tell.",
	"history":             "Facts the case knows; each needs a disclosure so a question can find it.",
	"medications":         "The patient's own medicines; class lets the safety checks reason about interactions.",
	"allergies":           "Each with drug_class when the agent is a drug; severity intolerance is not a true allergy.",
	"disclosures":         "What the patient says when asked, by topic: allergies, medications, history, onset, pain, symptoms, last_meal, social.",
	"lines":               "What an offline patient says when nothing more specific applies.",
	"news2":               "Scale 2 only with hypercapnic_target: true (RCP NEWS2 2017).",
	"initial_state":       "The state the patient arrives in.",
	"states":              "Phases of the illness: vitals the body moves towards (tau: how fast), signs, results per test, findings overriding the baseline.",
	"transitions":         "How the patient moves between states: time in state, an action, or a vital held past a threshold; mode all needs every condition.",
	"interventions":       "What each treatment does to the vitals; the first match applies, so list specific matches first.",
	"contraindications":   "Drugs or classes to stop (hard_stop) or warn about in this case, and what happens if given anyway.",
	"critical_actions":    "What must be done, within a time or before another action; their points and scoring's three items add up to 100.",
	"critical_errors":     "What must not be done (in states, if given), and its penalty.",
	"monitoring":          "Whether a monitor is attached from the start.",
	"rescue":              "Emergency treatments credited without waiting for an allergy history.",
	"scoring":             "Weights of the actions' part; diagnosis, disposition and actions split the whole score (default 35, 20, 45).",
	"learning_objectives": "What the case teaches; the review maps each to its critical actions.",
	"findings":            "The examination baseline every state inherits: airway, breathing, percussion, auscultation, heart, pulses, cap_refill, skin, abdomen, pupils, gcs, limbs, focused.",
	"tags":                "Words a shift's mix draws by (respiratory, cardiac, paediatric...).",
	"difficulty":          "foundation, intermediate or advanced.",
	"diagnosis":           "accepted: the diagnosis first, then synonyms (write abbreviations in capitals: they must match exactly); differentials: reasonable, not this case.",
	"disposition":         "Where the patient should go: resus, icu, hdu, ward, cath-lab, theatre or home, and why.",
	"reflection":          "Two or three questions the debrief asks after the case, each with the key points a good answer names.",
}

var topKey = regexp.MustCompile(`^([a-z_0-9]+):`)

// New writes dir/ID.yaml, a copy of the library's scenario from with the new id and a comment
// above each top-level key saying what it is for, and dir/ID.review.md, from's review to play
// against and change. It never overwrites a file.
func New(lib *sc.Library, id, from, dir string) (yamlFile, reviewFile string, err error) {
	if !regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`).MatchString(id) {
		return "", "", fmt.Errorf("id %q must be lowercase letters, digits, - or _", id)
	}
	src, review, ok := lib.Source(from)
	if !ok {
		return "", "", fmt.Errorf("no scenario %q to start from — ward scenarios list names them", from)
	}
	yamlFile, reviewFile = filepath.Join(dir, id+".yaml"), filepath.Join(dir, id+".review.md")
	for _, f := range []string{yamlFile, reviewFile} {
		if _, err := os.Stat(f); err == nil {
			return "", "", fmt.Errorf("%s exists already; choose another id or move it", f)
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", "", err
		}
	}
	if err := os.WriteFile(yamlFile, commented(src, id, from), 0o644); err != nil {
		return "", "", err
	}
	if len(review) == 0 {
		review = []byte("# Review: " + id + "\n\n## Paths\n\n### Untreated\n\n### Treated well\n\n### Mistreated\n")
	}
	head := fmt.Sprintf("<!-- Copied from %s's review: change the paths to what %s should do, then run `ward scenarios check %s`. -->\n", from, id, yamlFile)
	return yamlFile, reviewFile, os.WriteFile(reviewFile, append([]byte(head), review...), 0o644)
}

// commented is src with id for its id and a note above each top-level key.
func commented(src []byte, id, from string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: a new scenario, started from %s. Change what differs, keep what holds,\n", id, from)
	b.WriteString("# then `ward scenarios check " + id + ".yaml` plays its review and lists what cannot happen.\n")
	b.WriteString("# docs/scenarios.md walks through writing a case end to end.\n")
	for _, line := range strings.Split(strings.TrimRight(string(src), "\n"), "\n") {
		m := topKey.FindStringSubmatch(line)
		if m != nil {
			if note, ok := keyNotes[m[1]]; ok {
				b.WriteString("\n# " + note + "\n")
			}
			if m[1] == "id" {
				line = "id: " + id
			}
		}
		b.WriteString(line + "\n")
	}
	return []byte(b.String())
}
