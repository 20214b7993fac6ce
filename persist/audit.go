package persist

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ward-sim/ward/persist/outfile"
)

// The audit record of a database is a file beside it (AuditPath) to which ward only appends,
// one JSON line per entry: who did what to which shift, and when. It is a file of its own because
// the commands that only read a database work on a copy of it and cannot write to it, and
// because a wrong passphrase must leave the database's bytes as they were. It never holds
// clinical text: names of actions, trainees, shifts and patient IDs only. Anyone who can write
// the file can change it; ward does not guard it against that.

// Actions an audit entry records.
const (
	AuditOpen       = "open"    // a shift was opened to play or to read
	AuditExport     = "export"  // a chat, a review or a dump left ward
	AuditClear      = "clear"   // a shift was archived and cleared
	AuditRestore    = "restore" // an archive was put back
	AuditReport     = "report"  // a class report or a trainee's progress was read
	AuditFailed     = "passphrase_failed"
	AuditEnrol      = "enrol" // a trainee got their key
	AuditPassphrase = "passphrase_set"
	AuditEncrypt    = "encrypt"    // the database was converted
	AuditCurriculum = "curriculum" // the class's curriculum was set or cleared
	// A server's connections (ward serve): each one, who signed in, who was refused and why,
	// a trainee's newer connection taking over their older one, and how each ended.
	AuditConnect    = "connect"
	AuditSignIn     = "sign_in"
	AuditRefused    = "refused"
	AuditTakeover   = "takeover"
	AuditDisconnect = "disconnect"
	AuditRevoked    = "revoked" // an open connection's key was taken out of the enrolments
	AuditPanic      = "panic"   // something failed inside ward; the server went on
)

// AuditEntry is one line of the audit record.
type AuditEntry struct {
	At      time.Time `json:"at"`
	User    string    `json:"user"` // the login that ran ward
	As      string    `json:"as"`   // whom ward acted for: "trainee alice", "the instructor"
	Action  string    `json:"action"`
	Session string    `json:"session,omitempty"`
	Detail  string    `json:"detail,omitempty"`
}

// AuditLog appends to one database's audit record. A nil AuditLog records nothing.
type AuditLog struct {
	Path string // AuditPath of the database
	User string
}

// AuditPath is the audit record of the database at dbPath.
func AuditPath(dbPath string) string { return dbPath + ".audit" }

// Record appends one entry, durably. One write of one line: entries from two wards never
// interleave.
func (l *AuditLog) Record(who Person, action, session, detail string) error {
	if l == nil {
		return nil
	}
	line, err := json.Marshal(AuditEntry{At: time.Now().UTC(), User: l.User, As: who.String(), Action: action, Session: session, Detail: detail})
	if err != nil {
		return err
	}
	f, err := outfile.OpenLog(l.Path)
	if err != nil {
		return fmt.Errorf("audit record: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// ReadAudit reads the audit record at path, oldest first; none is an empty record.
func ReadAudit(path string) ([]AuditEntry, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEntry
	lines := bufio.NewScanner(f)
	for n := 1; lines.Scan(); n++ {
		var e AuditEntry
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			return out, fmt.Errorf("%s:%d: not an audit entry: %w", path, n, err)
		}
		out = append(out, e)
	}
	return out, lines.Err()
}
