package physio

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// examined is what an examination finds: the sound limb's finding for a sound limb, else the
// region's finding now.
func (e *Engine) examined(a action.Action) string {
	if e.soundLimb(a) {
		return strings.TrimSuffix(e.sc.Limb.Sound, ".") // a phrase, as State.Finding is
	}
	return e.finding(cmp.Or(a.Region, "pupils"))
}

// soundLimb reports whether a examines a limb other than the case's one-sided limb: the other
// side's, or the same side's other limb.
func (e *Engine) soundLimb(a action.Action) bool {
	return a.Kind == sc.KindExamine && a.Region == "limbs" && !e.sc.Limb.Is(a.Side, a.Limb)
}

// finding is what examining region finds now: the felt state's words, with any GCS in them the
// engine's own number, so the examination, the monitor and the nurse give one GCS.
// A focused examination also finds the vascular access the patient has, or its absence.
func (e *Engine) finding(region string) string {
	found := withGCS(e.Felt().Finding(region), e.TrueVitals().GCS)
	found = e.withReaction(region, found)
	if region == "focused" {
		access := "no cannula in either arm"
		if e.HasAccess() {
			access = "an IV cannula in situ"
		}
		found += "; " + access
	}
	return found
}

// gcsWords is a GCS written out by its parts, "E3 V4 M5", with its total after it when given.
var gcsWords = regexp.MustCompile(`E([1-4]) V([1-5]) M([1-6])(?: \((\d+)\))?`)

// withGCS rewrites the GCS a finding writes out when it is not gcs: its parts become the usual
// breakdown of gcs, and the rest of the words stay.
func withGCS(found string, gcs int) string {
	return gcsWords.ReplaceAllStringFunc(found, func(m string) string {
		p := gcsWords.FindStringSubmatch(m)
		eye, _ := strconv.Atoi(p[1])
		verbal, _ := strconv.Atoi(p[2])
		motor, _ := strconv.Atoi(p[3])
		if eye+verbal+motor == gcs {
			return m
		}
		eye, verbal, motor = gcsParts(gcs)
		return fmt.Sprintf("E%d V%d M%d (%d)", eye, verbal, motor, gcs)
	})
}

// gcsParts is a usual breakdown of a GCS total: the motor response is the last to go, the eyes
// and words first.
func gcsParts(gcs int) (eye, verbal, motor int) {
	gcs = min(max(gcs, 3), 15)
	motor = min(6, max(1, gcs-6))
	rest := gcs - motor
	verbal = min(5, max(1, rest-rest/2))
	eye = min(4, max(1, rest-verbal))
	verbal = gcs - motor - eye
	return eye, verbal, motor
}

// wheezeWords are the breath sounds of each grade of wheeze the engine has (0 none … 3 severe).
var wheezeWords = []string{"", "scattered expiratory wheeze", "widespread expiratory wheeze",
	"widespread wheeze with poor air entry"}

// withReaction is a finding as what treatment did makes it: the wheeze a drug reaction brought on
// is heard in the chest, and its hives are seen on the skin, whatever the state's words.
func (e *Engine) withReaction(region, found string) string {
	if !e.reacting() {
		return found
	}
	switch w := e.TrueVitals().Wheeze; {
	case region == "auscultation" && w > 0 && !strings.Contains(strings.ToLower(found), "wheeze"):
		return wheezeWords[min(w, 3)]
	case region == "skin" && !strings.Contains(strings.ToLower(found), "hives") &&
		!strings.Contains(strings.ToLower(found), "urticaria"):
		return strings.TrimSuffix(found, ".") + "; raised, itchy hives (urticaria) spreading over the trunk"
	}
	return found
}

// reacting reports whether an allergic reaction to a drug given is playing out now.
func (e *Engine) reacting() bool {
	for _, ef := range e.s.Effects {
		if ef.Source == sourceAllergy && ef.From <= e.s.T {
			return true
		}
	}
	return false
}
