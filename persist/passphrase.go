package persist

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The passphrase policy follows NIST SP 800-63B (5.1.1.2): a minimum length, no maximum short of
// what anyone types, every character allowed, and a check against values known to be common,
// repetitive or sequential or made of the context's own words, said plainly when refused.
const (
	minTraineePassphrase    = 12
	minInstructorPassphrase = 16 // the instructor's opens every trainee's records
	maxPassphrase           = 1024
)

// ErrWeakPassphrase is a new passphrase the policy refuses; the error says why.
var ErrWeakPassphrase = errors.New("passphrase refused")

//go:embed common-passwords.txt
var commonPasswordList string

var commonPasswords = func() map[string]bool {
	set := map[string]bool{}
	for _, line := range strings.Split(commonPasswordList, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			set[line] = true
		}
	}
	return set
}()

// CheckPassphrase says why a new passphrase is refused, or nil. trainee is the trainee it is
// for ("" for the instructor's), whose name it may not be made of.
func CheckPassphrase(passphrase []byte, trainee string, instructor bool) error {
	whose, least := "a trainee's", minTraineePassphrase
	if instructor {
		whose, least = "the instructor's", minInstructorPassphrase
	}
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrWeakPassphrase}, args...)...)
	}
	n := utf8.RuneCount(passphrase)
	switch {
	case !utf8.Valid(passphrase):
		return refuse("it is not valid UTF-8 text")
	case n < least:
		return refuse("%s passphrase needs at least %d characters, and this one has %d; a few ordinary words make a long one that is easy to remember", whose, least, n)
	case n > maxPassphrase:
		return refuse("a passphrase may have up to %d characters", maxPassphrase)
	}
	folded := fold(string(passphrase))
	switch {
	case commonPasswords[folded] || commonPasswords[stem(folded)]:
		return refuse("it is on ward's list of common passwords (or one of them with digits added), the first an attacker tries")
	case repeats(folded):
		return refuse("it repeats one short pattern")
	case sequential(folded):
		return refuse("it is a run of consecutive characters")
	case distinct(folded) < minDistinct:
		return refuse("it has only %d different characters", distinct(folded))
	case keyboardWalk(folded):
		return refuse("it is a walk along the keyboard")
	case madeOfContext(folded, trainee):
		return refuse("it is made of the trainee's name (or it backwards) or ward's own words, and little else")
	}
	return nil
}

// minDistinct is the fewest different characters a passphrase may have: "aaaaaaaaaaab" is one
// letter repeated however it ends.
const minDistinct = 4

// distinct counts the different characters of s.
func distinct(s string) int {
	seen := map[rune]bool{}
	for _, r := range s {
		seen[r] = true
	}
	return len(seen)
}

// keyboard is the rows of a QWERTY keyboard, unshifted, the layout keyboard walks are made on.
var keyboard = []string{"1234567890-=", "qwertyuiop[]", "asdfghjkl;'", "zxcvbnm,./"}

// keyAt is each key's row and column on keyboard.
var keyAt = func() map[rune][2]int {
	at := map[rune][2]int{}
	for row, keys := range keyboard {
		for col, k := range keys {
			at[k] = [2]int{row, col}
		}
	}
	return at
}()

// keyboardWalk reports whether s is a walk along the keyboard: each key next to the last, along
// a row or down a column ("qwertyuiop", "1qaz2wsx"), with one slip in every eight allowed for
// the jump from one row's end to the next ("qwertyuiopas").
func keyboardWalk(s string) bool {
	r := []rune(s)
	slips := 0
	for i := 1; i < len(r); i++ {
		a, okA := keyAt[r[i-1]]
		b, okB := keyAt[r[i]]
		dRow, dCol := abs(a[0]-b[0]), abs(a[1]-b[1])
		if !okA || !okB || !(dRow == 0 && dCol <= 1 || dRow == 1 && dCol == 0) {
			slips++
		}
	}
	return slips <= len(r)/8
}

func abs(n int) int { return max(n, -n) }

// fold lowers the case and drops white space, as the list is written.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// stem drops the digits and punctuation that end a password: "password1234!" is "password".
func stem(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsDigit(r) || unicode.IsPunct(r) || unicode.IsSymbol(r) })
}

// repeats reports whether s is one unit of up to four characters over and over.
func repeats(s string) bool {
	r := []rune(s)
	for unit := 1; unit <= 4 && unit < len(r); unit++ {
		same := true
		for i := unit; i < len(r) && same; i++ {
			same = r[i] == r[i-unit]
		}
		if same {
			return true
		}
	}
	return false
}

// sequential reports whether every character is one after (or one before) the last: "abcdef…",
// "3456789012" (digits wrap round).
func sequential(s string) bool {
	r := []rune(s)
	step := func(a, b rune) rune {
		if unicode.IsDigit(a) && unicode.IsDigit(b) {
			return ((b-a)%10 + 10) % 10
		}
		return b - a
	}
	up, down := true, true
	for i := 1; i < len(r); i++ {
		d := step(r[i-1], r[i])
		up = up && d == 1
		down = down && (d == -1 || d == 9)
	}
	return up || down
}

// madeOfContext reports whether little but the trainee's name (forwards or backwards, in letters
// or with digits for letters) and ward's words is left once they and the digits and punctuation
// are taken out: fewer than four letters, or one letter or pattern repeated.
func madeOfContext(s, trainee string) bool {
	name := fold(trainee)
	found := false
	for _, form := range []string{s, unleet(s)} {
		rest := form
		for _, word := range []string{name, reverse(name), "ward", "trainee", "instructor", "passphrase", "password"} {
			if word != "" && strings.Contains(rest, word) {
				rest, found = strings.ReplaceAll(rest, word, ""), true
			}
		}
		rest = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) {
				return r
			}
			return -1
		}, rest)
		if found && (utf8.RuneCountInString(rest) < 4 || distinct(rest) < 3 || repeats(rest)) {
			return true
		}
	}
	return false
}

// unleet reads digits and symbols written for letters as the letters: "4l1c3" is "alice".
func unleet(s string) string { return leet.Replace(s) }

var leet = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "@", "a", "$", "s", "!", "i")

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}
