package lab

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/persist/outfile"
	gossh "golang.org/x/crypto/ssh"
)

// The enrolments are a file beside the database (KeysPath), not records in it: `ward enrol`
// must work while `ward serve` holds the database's lock, and the server reads the file afresh
// at each connection. Each line is "trainee NAME KEY" or "instructor NAME KEY", KEY in
// authorized_keys form. Enrolling appends one line in one write and syncs it (outfile.OpenLog:
// 0600, never a file ward must not touch): nothing enrolled before is rewritten, a reader never
// sees half a line, and a line cut short by a crash is the only one lost.

// KeysPath is the enrolments of the database at dbPath.
func KeysPath(dbPath string) string { return dbPath + ".keys" }

// Enrolment is one enrolled key: whose it is, and whether it is the instructor's.
type Enrolment struct {
	Name       string
	Instructor bool
	Key        gossh.PublicKey
}

// person is whom ward acts for on the enrolment's connection.
func (e Enrolment) person() persist.Person {
	if e.Instructor {
		return persist.Person{Instructor: true}
	}
	return persist.Person{Trainee: e.Name}
}

func (e Enrolment) role() string {
	if e.Instructor {
		return "instructor"
	}
	return "trainee"
}

// namePattern is what a name may be: an SSH user name, and a trainee's name in the database.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// CheckName refuses a name a trainee could not type as their SSH user name.
func CheckName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%q cannot be an enrolled name: 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit", name)
	}
	return nil
}

// ParseKey reads one public key in authorized_keys form; comment is what follows it.
func ParseKey(line []byte) (key gossh.PublicKey, comment string, err error) {
	key, comment, _, rest, err := gossh.ParseAuthorizedKey(line)
	if err != nil {
		return nil, "", fmt.Errorf("not a public key in authorized_keys form: %w", err)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, "", errors.New("more than one key: give one key per enrolment")
	}
	return key, comment, nil
}

// Enrolments are the keys enrolled for a database.
type Enrolments []Enrolment

// ReadEnrolments reads the enrolments at path; no file is none. Blank lines and # comments are
// skipped (the file may be edited by hand: deleting a key's line revokes it). A last line with
// no newline is read if it is whole, and otherwise taken for one being appended.
func ReadEnrolments(path string) (Enrolments, error) {
	all, _, err := readEnrolments(path)
	return all, err
}

// readEnrolments is ReadEnrolments, and whether the file ends with a newline (or is empty).
func readEnrolments(path string) (all Enrolments, ended bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	lines := strings.Split(string(data), "\n")
	for n, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseEnrolment(line)
		if err != nil && n == len(lines)-1 {
			break // being appended
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		all = append(all, e)
	}
	return all, len(data) == 0 || data[len(data)-1] == '\n', nil
}

func parseEnrolment(line string) (Enrolment, error) {
	fields := strings.Fields(line)
	if len(fields) < 3 || (fields[0] != "trainee" && fields[0] != "instructor") {
		return Enrolment{}, errors.New(`not an enrolment: want "trainee NAME KEY" or "instructor NAME KEY"`)
	}
	if err := CheckName(fields[1]); err != nil {
		return Enrolment{}, err
	}
	key, _, err := ParseKey([]byte(strings.Join(fields[2:], " ")))
	return Enrolment{Name: fields[1], Instructor: fields[0] == "instructor", Key: key}, err
}

// Of is the enrolment of key; false when it is not enrolled.
func (all Enrolments) Of(key gossh.PublicKey) (Enrolment, bool) {
	for _, e := range all {
		if bytes.Equal(e.Key.Marshal(), key.Marshal()) {
			return e, true
		}
	}
	return Enrolment{}, false
}

// Count is how many trainees are enrolled (each once, whatever their keys).
func (all Enrolments) Count() int {
	seen := map[string]bool{}
	for _, e := range all {
		if !e.Instructor {
			seen[e.Name] = true
		}
	}
	return len(seen)
}

// check refuses e if it contradicts what is enrolled: its key another's, or its name in the
// other role. added says whether it is new (false: enrolled already, nothing to do).
func (all Enrolments) check(e Enrolment) (added bool, err error) {
	if other, ok := all.Of(e.Key); ok {
		if other.Name == e.Name && other.Instructor == e.Instructor {
			return false, nil
		}
		return false, fmt.Errorf("this key (%s) is enrolled already, as %s %s", gossh.FingerprintSHA256(e.Key), other.role(), other.Name)
	}
	for _, other := range all {
		if other.Name == e.Name && other.Instructor != e.Instructor {
			return false, fmt.Errorf("%s is enrolled as the %s already; one name has one role", e.Name, other.role())
		}
	}
	return true, nil
}

// Enrol adds the enrolments to the file at path, which a running server reads at its next
// connection. Each is checked against the file and those before it; none is written unless all
// pass. It returns the ones that were new.
func Enrol(path string, es ...Enrolment) (Enrolments, error) {
	all, ended, err := readEnrolments(path)
	if err != nil {
		return nil, err
	}
	var added Enrolments
	var lines []byte
	if !ended { // a hand's last line with no newline: ours start on a line of their own
		lines = []byte("\n")
	}
	for _, e := range es {
		if err := CheckName(e.Name); err != nil {
			return nil, err
		}
		if strings.HasPrefix(e.Name, teamPrefix) {
			return nil, fmt.Errorf("%q: names starting %q are teams' shifts (ward team); choose another", e.Name, teamPrefix)
		}
		fresh, err := all.check(e)
		if err != nil {
			return nil, err
		}
		if fresh {
			all, added = append(all, e), append(added, e)
			lines = fmt.Appendf(lines, "%s %s %s\n", e.role(), e.Name, bytes.TrimSpace(gossh.MarshalAuthorizedKey(e.Key)))
		}
	}
	if len(added) == 0 {
		return nil, nil
	}
	f, err := outfile.OpenLog(path)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(lines)
	if err == nil {
		err = f.Sync()
	}
	return added, errors.Join(err, f.Close())
}

// AuthorizedKeys reads an authorized_keys file as trainees' enrolments, each line's comment the
// trainee's name. Blank lines and # comments are skipped; any other line that is not a key with
// a name is an error naming it.
func AuthorizedKeys(path string) (Enrolments, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out, err := parseAuthorizedKeys(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return out, nil
}

// parseAuthorizedKeys is AuthorizedKeys of the file's bytes; an error starts with its line's
// number.
func parseAuthorizedKeys(data []byte) (Enrolments, error) {
	var out Enrolments
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, comment, err := ParseKey([]byte(line))
		if err == nil && comment == "" {
			err = errors.New("the key has no comment, which names its trainee")
		}
		if err == nil {
			err = CheckName(comment)
		}
		if err != nil {
			return nil, fmt.Errorf("%d: %w", n+1, err)
		}
		out = append(out, Enrolment{Name: comment, Key: key})
	}
	return out, nil
}
