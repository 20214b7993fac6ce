package scenario

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Unit is what an amount of drug is counted in. Mass is always held in
// milligrams; micrograms and grams convert to it as they are read.
type Unit string

const (
	Milligrams  Unit = "mg"
	Units       Unit = "units" // international units: insulin, heparin
	Millilitres Unit = "mL"    // a liquid dosed by its own volume (methoxyflurane)
	Puffs       Unit = "puffs" // metered doses of an inhaler or spray
)

// Dose is a dose as it was written: an amount, a volume, a strength, or any
// of them together ("0.5 mL of 1 in 1000"). Turning it into an amount of drug
// is the formulary's job, because only the drug says which strengths exist.
type Dose struct {
	Amount   float64  // in Unit; 0 when the dose is only a volume
	Unit     Unit     // Milligrams, Units or Puffs
	PerKg    bool     // Amount is per kg of body weight
	PerHour  bool     // an infusion of units ("0.1 units/kg/h"): Amount runs each hour; checks weigh the first
	VolumeML float64  // the volume to give, when stated
	Strength Strength // zero when not stated
	// Infusion: run in over a time ("over 20 minutes", "as an infusion"), not pushed as a bolus.
	Infusion bool
}

// Strength is how much drug one mL (or one puff) holds.
type Strength struct {
	Amount float64 // in Unit, per mL or per puff
	Unit   Unit    // Milligrams or Units
	Puff   bool    // per puff of a metered-dose inhaler or spray, not per mL
	Label  string  // as it is usually written: "1 mg/mL", "1 in 1000", "10%"
}

// IsZero reports whether no strength was stated.
func (s Strength) IsZero() bool { return s.Amount == 0 }

// Same reports whether two strengths are the same concentration, however
// they were written (1 in 1000 is 1 mg/mL).
func (s Strength) Same(o Strength) bool {
	return s.Unit == o.Unit && s.Puff == o.Puff && math.Abs(s.Amount-o.Amount) <= 1e-9*math.Max(s.Amount, o.Amount)
}

// IsInfusion reports whether the dose runs in over time, by a rate or as written.
func (d Dose) IsInfusion() bool { return d.Infusion || d.PerHour }

// IsZero reports whether the phrase held no dose at all.
func (d Dose) IsZero() bool { return d.Amount == 0 && d.VolumeML == 0 && d.Strength.IsZero() }

// MarshalText writes the dose as String does, so a stored order reads as it was written.
func (d Dose) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a dose written by MarshalText; text with no dose is the zero dose.
func (d *Dose) UnmarshalText(text []byte) error {
	*d, _ = ParseDose(string(text))
	return nil
}

// String writes the dose so that ParseDose reads it back: "0.5 mg",
// "0.5 mL of 1 in 1000", "2 puffs of 100 micrograms/puff", "1.5 micrograms/kg".
func (d Dose) String() string {
	var parts []string
	if d.Amount > 0 {
		a := formatAmount(d.Amount, d.Unit)
		if d.PerKg {
			a += "/kg"
		}
		if d.PerHour {
			a += "/h"
		}
		parts = append(parts, a)
	}
	if d.VolumeML > 0 {
		parts = append(parts, num(d.VolumeML)+" mL")
	}
	if !d.Strength.IsZero() {
		if len(parts) > 0 {
			parts = append(parts, "of")
		}
		parts = append(parts, d.Strength.Label)
	}
	if d.Infusion {
		parts = append(parts, "by infusion")
	}
	return strings.Join(parts, " ")
}

// formatAmount writes an amount in its unit, a mass as a chart writes it: under 1 mg in
// micrograms, 1 g and more in grams ("1.2 g", not "1200 mg").
func formatAmount(v float64, u Unit) string {
	switch {
	case u == Milligrams && v < 1:
		return num(v*1000) + " micrograms"
	case u == Milligrams && v >= 1000:
		return num(v/1000) + " g"
	}
	return num(v) + " " + string(u)
}

// num writes a number with no exponent, to 12 significant digits so that
// unit conversions do not show as 1.5000000000000002.
func num(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// maxNumber bounds what the parser takes as a number: no dose of anything is
// ten million of its unit, so longer digit strings are typing, not doses.
const maxNumber = 1e7

// ParseDose reads the dose in a phrase such as "0.5 mg", "500 mcg",
// "0.5 ml of 1:1000", "100 ml of 10% glucose", "10 units" or "2 puffs".
// Words it does not know are skipped, so the phrase may name the drug and
// route too. ok is false when the phrase holds no dose. Where a phrase
// gives an amount (or a volume, or a strength) twice, the first one counts.
// Rates ("1 mg/min") are not doses and are skipped.
func ParseDose(text string) (d Dose, ok bool) {
	toks := lex(text)
	for i := 0; i < len(toks); {
		i += d.read(toks, i)
	}
	d.Infusion = d.Infusion && !d.PerHour // a rate by the hour already says it runs in
	return d, !d.IsZero()
}

// read takes what starts at toks[i] into d and returns how many tokens it used.
func (d *Dose) read(toks []token, i int) int {
	t := toks[i]
	at := func(k int) token {
		if i+k < len(toks) {
			return toks[i+k]
		}
		return token{}
	}
	if !t.isNum {
		if pct, ok := dextroseStrength[t.word]; ok {
			d.setStrength(percent(pct))
		}
		if infusionWords[t.word] {
			d.Infusion = true
		}
		if t.word == "over" && at(1).isNum && timeWords[at(2).word] { // "over 20 minutes"
			d.Infusion = true
			return 3
		}
		return 1
	}
	// 1:1000, 1 in 10,000, 1 in 10 000
	if (at(1).word == ":" || at(1).word == "in") && at(2).isNum {
		// The longest reading that is a strength wins: "1 in 10 000", but
		// "1:1000 500 micrograms" keeps its 500.
		bs := []float64{at(2).num}
		for n := 3; at(n).group && len(bs) < 3; n++ {
			bs = append(bs, bs[len(bs)-1]*1000+at(n).num)
		}
		for k := len(bs) - 1; k >= 0; k-- {
			next := at(3 + k)
			if s, ok := ratio(t.num, bs[k]); ok && !isUnit(next.word) && !timeWords[next.word] {
				d.setStrength(s)
				return 3 + k
			}
		}
	}
	// 10%, 10 percent, 10 per cent
	if at(1).word == "%" || at(1).word == "percent" || (at(1).word == "per" && at(2).word == "cent") {
		if t.num > 0 && t.num <= 100 {
			d.setStrength(percent(t.num))
		}
		if at(1).word == "per" {
			return 3
		}
		return 2
	}
	if u, scale, ok := drugUnit(at(1).word); ok {
		return 2 + d.readDrugAmount(toks[i+2:], t.num*scale, u)
	}
	// 2 x 500 mg is 1 g
	if (at(1).word == "x" || at(1).word == "×") && at(2).isNum {
		if u, scale, ok := drugUnit(at(3).word); ok {
			return 4 + d.readDrugAmount(toks[i+4:], t.num*at(2).num*scale, u)
		}
	}
	if scale, ok := volumeUnits[at(1).word]; ok {
		if (at(2).word == "/" || at(2).word == "per") && at(3).word == "kg" { // "2 mL/kg": worked out from the weight
			d.setAmount(t.num*scale, Millilitres, true)
			return 4
		}
		if isRate(toks[i+2:]) {
			return 2
		}
		d.setVolume(t.num * scale)
		return 2
	}
	if puffWords[at(1).word] {
		d.setAmount(t.num, Puffs, false)
		return 2
	}
	return 1
}

// readDrugAmount reads what follows "<n> <mass or units>": a strength
// ("/mL", "/10 mL", "/puff", "each" after a count of puffs), a dose per kg,
// a dose in a volume ("500 mg in 100 mL"), a rate (skipped) or a plain amount.
func (d *Dose) readDrugAmount(rest []token, amount float64, u Unit) int {
	at := func(k int) token {
		if k < len(rest) {
			return rest[k]
		}
		return token{}
	}
	per := at(0).word == "/" || at(0).word == "per"
	switch {
	case per && at(1).word == "kg":
		if isRate(rest[2:]) {
			return 2 + d.readInfusion(rest[2:], amount, u, true)
		}
		d.setAmount(amount, u, true)
		return 2
	case per && isRate(rest):
		return d.readInfusion(rest, amount, u, false)
	case per && puffWords[at(1).word]:
		d.setStrength(Strength{Amount: amount, Unit: u, Puff: true, Label: formatAmount(amount, u) + "/puff"})
		return 2
	case per && volumeUnits[at(1).word] > 0:
		d.setStrength(perVolume(amount, u, 1))
		return 2
	case per && at(1).isNum && volumeUnits[at(2).word] > 0:
		d.setStrength(perVolume(amount, u, at(1).num*volumeUnits[at(2).word]))
		return 3
	case at(0).word == "in" && at(1).isNum && volumeUnits[at(2).word] > 0:
		d.setAmount(amount, u, false)
		d.setVolume(at(1).num * volumeUnits[at(2).word])
		return 3
	case at(0).word == "each" && d.Unit == Puffs:
		d.setStrength(Strength{Amount: amount, Unit: u, Puff: true, Label: formatAmount(amount, u) + "/puff"})
		return 1
	}
	d.setAmount(amount, u, false)
	return 0
}

// readInfusion reads the rate after an amount: units by the hour are an infusion (insulin,
// heparin) and are kept; any other rate is skipped, since a rate is not a dose. It returns the
// tokens the rate used.
func (d *Dose) readInfusion(rate []token, amount float64, u Unit, perKg bool) int {
	if u == Units && hourWords[rate[1].word] && d.Amount == 0 {
		d.setAmount(amount, u, perKg)
		d.PerHour = d.Amount > 0
	}
	return 2
}

// hourWords are the ways a rate says "per hour".
var hourWords = map[string]bool{"h": true, "hr": true, "hrs": true, "hour": true, "hours": true}

func (d *Dose) setAmount(v float64, u Unit, perKg bool) {
	if d.Amount == 0 && v > 0 && v < maxNumber {
		d.Amount, d.Unit, d.PerKg = v, u, perKg
	}
}

func (d *Dose) setVolume(v float64) {
	if d.VolumeML == 0 && v > 0 && v < maxNumber {
		d.VolumeML = v
	}
}

func (d *Dose) setStrength(s Strength) {
	if d.Strength.IsZero() && s.Amount > 0 && s.Amount < maxNumber {
		d.Strength = s
	}
}

// ratio reads "1 in 1000": one gram in that many mL, so 1 in 1000 is 1 mg/mL.
// Ratio strengths are written 1 in 100 or weaker; anything else ("14:30")
// is not a strength.
func ratio(a, b float64) (Strength, bool) {
	if a != 1 || b < 100 || b >= maxNumber {
		return Strength{}, false
	}
	return Strength{Amount: 1000 / b, Unit: Milligrams, Label: "1 in " + num(b)}, true
}

// percent reads % w/v: grams per 100 mL, so 10 % is 100 mg/mL.
func percent(p float64) Strength {
	return Strength{Amount: p * 10, Unit: Milligrams, Label: num(p) + "%"}
}

// perVolume is amount in ml; a volume too large to write back is none.
func perVolume(amount float64, u Unit, ml float64) Strength {
	if ml <= 0 || ml >= maxNumber || amount >= maxNumber {
		return Strength{}
	}
	label := formatAmount(amount, u) + "/mL"
	if n := num(ml); n != "1" {
		label = formatAmount(amount, u) + "/" + n + " mL"
	}
	return Strength{Amount: amount / ml, Unit: u, Label: label}
}

// isRate reports whether toks start with "/min", "per hour" and the like.
func isRate(toks []token) bool {
	return len(toks) >= 2 && (toks[0].word == "/" || toks[0].word == "per") && timeWords[toks[1].word]
}

func isUnit(w string) bool {
	_, _, drug := drugUnit(w)
	return drug || volumeUnits[w] > 0 || puffWords[w] || w == "%"
}

// drugUnit maps a unit word to the unit it counts in and the factor to it.
func drugUnit(w string) (Unit, float64, bool) {
	if scale, ok := massUnits[w]; ok {
		return Milligrams, scale, true
	}
	if unitWords[w] {
		return Units, 1, true
	}
	return "", 0, false
}

var (
	massUnits = map[string]float64{
		"mg": 1, "mgs": 1, "milligram": 1, "milligrams": 1, "milligramme": 1, "milligrammes": 1,
		"mcg": 0.001, "mcgs": 0.001, "microgram": 0.001, "micrograms": 0.001, "microgramme": 0.001,
		"microgrammes": 0.001, "µg": 0.001, "μg": 0.001, "ug": 0.001,
		"g": 1000, "gm": 1000, "gms": 1000, "gram": 1000, "grams": 1000, "gramme": 1000, "grammes": 1000,
	}
	// "u" is left out on purpose: a handwritten U is read as a 0, a tenfold error.
	unitWords   = map[string]bool{"unit": true, "units": true, "iu": true}
	volumeUnits = map[string]float64{
		"ml": 1, "mls": 1, "millilitre": 1, "millilitres": 1, "milliliter": 1, "milliliters": 1, "cc": 1,
		"l": 1000, "litre": 1000, "litres": 1000, "liter": 1000, "liters": 1000,
	}
	puffWords = map[string]bool{"puff": true, "puffs": true, "actuation": true, "actuations": true,
		"spray": true, "sprays": true}
	timeWords = map[string]bool{"min": true, "mins": true, "minute": true, "minutes": true, "h": true,
		"hr": true, "hrs": true, "hour": true, "hours": true, "day": true, "d": true}
	// infusionWords say a dose runs in over time rather than as a bolus.
	infusionWords = map[string]bool{"infusion": true, "infuse": true, "infused": true, "drip": true}
	// dextroseStrength: D10 is dextrose 10 %, as written on American charts.
	dextroseStrength = map[string]float64{"d5": 5, "d10": 10, "d20": 20, "d50": 50}
	numberWords      = map[string]float64{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10}
)

// token is a number, a lower-case word, or one symbol.
type token struct {
	isNum bool
	num   float64
	group bool // exactly three digits: a thousands group after a space ("10 000")
	word  string
}

// lex splits text into numbers, words and symbols. Commas between thousands
// are read ("10,000"); groups after a space are joined only where a ratio
// needs them, so "2 100" is not 2100.
func lex(text string) []token {
	rs := []rune(strings.ToLower(text))
	var toks []token
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case isDigit(rs, i) || (r == '.' && isDigit(rs, i+1)):
			n, next := scanNumber(rs, i)
			toks = append(toks, n)
			i = next
		case unicode.IsLetter(r):
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			w := string(rs[i:j])
			if v, ok := numberWords[w]; ok {
				toks = append(toks, token{isNum: true, num: v})
			} else {
				toks = append(toks, token{word: w})
			}
			i = j
		case unicode.IsSpace(r):
			i++
		default:
			toks = append(toks, token{word: string(r)})
			i++
		}
	}
	return toks
}

func isDigit(rs []rune, i int) bool { return i < len(rs) && rs[i] >= '0' && rs[i] <= '9' }

// scanNumber reads a number from rs[i]: digits, thousands groups, a decimal
// part, and a fraction ("1/2"). A decimal comma ("10,5") is not read as
// either number: it is unknown, as is anything over maxNumber.
func scanNumber(rs []rune, i int) (token, int) {
	text, i := scanDecimal(rs, i)
	if i < len(rs) && rs[i] == ',' && isDigit(rs, i+1) {
		for i++; isDigit(rs, i); i++ {
		}
		return token{word: "?"}, i
	}
	v, err := strconv.ParseFloat(text, 64)
	if i+1 < len(rs) && rs[i] == '/' && isDigit(rs, i+1) {
		var den string
		den, i = scanDecimal(rs, i+1)
		d, derr := strconv.ParseFloat(den, 64)
		if derr != nil || d == 0 {
			return token{word: "?"}, i
		}
		v /= d
	}
	if err != nil || v >= maxNumber {
		return token{word: "?"}, i
	}
	return token{isNum: true, num: v, group: len(text) == 3 && !strings.Contains(text, ".")}, i
}

// scanDecimal reads digits with thousands commas and a decimal part.
func scanDecimal(rs []rune, i int) (string, int) {
	var b strings.Builder
	digits := func() {
		for isDigit(rs, i) {
			b.WriteRune(rs[i])
			i++
		}
	}
	digits()
	for i < len(rs) && rs[i] == ',' && group(rs, i+1) {
		i++
		digits()
	}
	if i < len(rs) && rs[i] == '.' && isDigit(rs, i+1) {
		b.WriteRune('.')
		i++
		digits()
	}
	return b.String(), i
}

// group reports whether rs[i:] starts with exactly three digits.
func group(rs []rune, i int) bool {
	return isDigit(rs, i) && isDigit(rs, i+1) && isDigit(rs, i+2) && !isDigit(rs, i+3)
}
