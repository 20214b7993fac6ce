package agents

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ward-sim/ward/memory"
)

// A model may quote a clinical number only when its prompt gave it: the engine's facts, what was
// said in the conversation, the trainee's own words. GivenNumbers collects those; Invented finds
// the clinical numbers of a reply that are not among them. A number is clinical when a unit
// follows it or a vital sign, score, dose or result names it just before: "212" in "my heart
// rate is 212", "61 %", "10 mg". Other numbers ("two days", "since I was 8") are speech.

var anyNumber = regexp.MustCompile(`\d+(?:\.\d+)?`)

// names are the words (and pairs of words) that make the number a few words after them
// clinical; unit starts with a unit that makes the number before it clinical.
var names = setOf("heart rate", "heartrate", "pulse", "hr", "bp", "blood pressure", "pressure", "systolic", "diastolic",
	"sat", "sats", "saturation", "saturations", "spo2", "sp02", "o2", "oxygen", "temp", "temperature", "resp rate",
	"respiratory rate", "rr", "breathing rate", "news", "news2", "score", "gcs", "glucose", "bm", "sugar", "cbg",
	"ketone", "ketones", "lactate", "potassium", "sodium", "troponin", "haemoglobin", "hemoglobin", "hb", "ph", "po2",
	"pco2", "pao2", "paco2", "bicarb", "bicarbonate", "creatinine", "crp", "wcc", "white cell", "white cells",
	"platelets", "inr", "dose", "peak flow", "pefr", "etco2", "capnography", "rate", "reading", "level")

// nameGap is how far before a number its name may end: "heart rate is now about 212".
const nameGap = 24

var (
	unit = regexp.MustCompile(`(?i)^\s*(?:%|per ?cent|mm ?hg|bpm|beats|breaths|/ ?min|per minute|mg|mcg|micrograms?|milligrams?|grams?|g\b|ml|millilit(?:re|er)s?|units?|mmol|°|degrees|kg|l/min|litres?|liters?|kpa|ng/l)`)
	// ratio joins two numbers read as one reading: "120/80"
	ratio = regexp.MustCompile(`^\s*/\s*$`)
)

func setOf(words ...string) map[string]bool {
	set := map[string]bool{}
	for _, w := range words {
		set[w] = true
	}
	return set
}

// namedBefore reports whether before ends with a name, at most nameGap bytes before its end and
// with no number, full stop or new line after it: what names the number that follows.
func namedBefore(before string) bool {
	lower := strings.ToLower(before)
	next := "" // the word after the one being read, for names of two words
	for i := len(lower); i > 0; {
		j := i
		for ; j > 0 && !isWordByte(lower[j-1]); j-- {
			if lower[j-1] == '.' || lower[j-1] == '\n' {
				return false
			}
		}
		k := j
		for k > 0 && isWordByte(lower[k-1]) {
			k--
		}
		word := lower[k:j]
		if word == "" || len(lower)-j > nameGap || strings.Trim(word, "0123456789") == "" {
			return false
		}
		if names[word] || next != "" && names[word+" "+next] {
			return true
		}
		next, i = word, k
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || isDigit(b) || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// GivenNumbers are the numbers a prompt gives its agent: every number in its facts lines and the
// conversation, and none from the agent's own instructions. They are read from the sections' parts
// as Texts writes them, without writing them: each part stands between line breaks or spaces
// there, so no number runs from one part into the next (TestGivenNumbersReadTheTexts).
func GivenNumbers(p Prompt) map[string]bool {
	given := make(map[string]bool, 64) // a prompt gives a few dozen numbers: one allocation, not one a doubling
	add := func(text string) {         // a scan, not anyNumber: a prompt runs to tens of kilobytes
		for i := 0; i < len(text); i++ {
			if !isDigit(text[i]) {
				continue
			}
			j := i
			for j < len(text) && isDigit(text[j]) {
				j++
			}
			if j+1 < len(text) && text[j] == '.' && isDigit(text[j+1]) {
				for j++; j < len(text) && isDigit(text[j]); j++ {
				}
			}
			given[Canonical(text[i:j])] = true
			i = j
		}
	}
	for line := range strings.Lines(p.Static) {
		if strings.HasPrefix(line, PersonaHeading) {
			add(line)
		}
	}
	for _, msgs := range [...][]memory.Message{p.Window, p.After} {
		for _, m := range msgs {
			add(m.Role)
			add(m.ToolName)
			for _, c := range m.ToolCalls {
				args, _ := json.Marshal(c.Args)
				add(c.Name)
				add(string(args))
			}
			add(m.Content)
		}
	}
	add(p.Dynamic)
	add(p.Instruction)
	add(p.Memory.Render())
	add(p.User)
	return given
}

// Invented are the clinical numbers of reply that given lacks, each once, in order. A number is
// clinical when a name comes just before it or a unit just after it; two numbers joined by a
// slash ("120/80 mmHg") are one reading, clinical together or not at all ("8/10" for pain).
func Invented(reply string, given map[string]bool) []string {
	locs := slices.DeleteFunc(anyNumber.FindAllStringIndex(reply, -1), func(loc []int) bool {
		r, _ := utf8.DecodeLastRuneInString(reply[:loc[0]])
		return unicode.IsLetter(r) // the 2 of "SpO2" or "NEWS2" is part of a name
	})
	clinical := make([]bool, len(locs))
	joined := make([]bool, len(locs)) // joined[i]: number i continues number i-1's reading
	for i, loc := range locs {
		clinical[i] = namedBefore(reply[max(0, loc[0]-48):loc[0]]) || unit.MatchString(reply[loc[1]:])
		joined[i] = i > 0 && ratio.MatchString(reply[locs[i-1][1]:loc[0]])
	}
	for i := 1; i < len(locs); i++ { // a reading's parts share what makes one clinical
		if joined[i] {
			clinical[i] = clinical[i] || clinical[i-1]
		}
	}
	for i := len(locs) - 1; i > 0; i-- {
		if joined[i] {
			clinical[i-1] = clinical[i-1] || clinical[i]
		}
	}
	var out []string
	for i, loc := range locs {
		if n := reply[loc[0]:loc[1]]; clinical[i] && !given[Canonical(n)] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// Canonical writes a number one way, so "02", "2" and "2.0" are the same number.
func Canonical(n string) string {
	if isPlainInteger(n) {
		return n // as FormatFloat would write it again, without the copy
	}
	v, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return n
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// isPlainInteger: digits alone, without a leading zero, few enough that a float64 holds them exactly.
func isPlainInteger(n string) bool {
	if n == "" || len(n) > 15 || n[0] == '0' && len(n) > 1 {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !isDigit(n[i]) {
			return false
		}
	}
	return true
}
