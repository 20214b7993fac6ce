package records

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ward-sim/ward/persist"
)

// ArchiveEntry is one archive of a shift. Number counts the shift's archives from 1 in the order
// they were made, so it never changes once given; ID is the stored key, a timestamp.
type ArchiveEntry struct {
	Number          int
	ID              string
	Patients        int
	SessionMessages int
}

// ArchiveEntries numbers the shift's archives, oldest first.
func ArchiveEntries(store *persist.Store, sessionID string) ([]ArchiveEntry, error) {
	sums, err := store.ArchiveSummaries(sessionID)
	if err != nil {
		return nil, err
	}
	out := make([]ArchiveEntry, len(sums))
	for i, s := range sums {
		out[i] = ArchiveEntry{Number: i + 1, ID: s.ID, Patients: s.Patients, SessionMessages: s.SessionMessages}
	}
	return out, nil
}

// FindArchive resolves what a trainee typed: an archive's number ("3" or "#3"), or a prefix of
// its ID long enough to name one archive ("2026" is a prefix unless there are 2026 archives).
func FindArchive(entries []ArchiveEntry, ref string) (ArchiveEntry, error) {
	if n, err := strconv.Atoi(strings.TrimPrefix(ref, "#")); err == nil && n >= 1 && n <= len(entries) {
		return entries[n-1], nil
	}
	var found []ArchiveEntry
	for _, e := range entries {
		if ref != "" && strings.HasPrefix(e.ID, ref) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return ArchiveEntry{}, noSuchArchive(ref)
	case 1:
		return found[0], nil
	}
	return ArchiveEntry{}, fmt.Errorf("%q names %d archives — use the number `ward archive list` shows", ref, len(found))
}

// noSuchArchive says what to do when the archive asked for is not there; it matches
// persist.ErrNotFound.
type noSuchArchive string

func (ref noSuchArchive) Error() string {
	return fmt.Sprintf("no archive %q in this shift — `ward archive list` shows them", string(ref))
}

func (noSuchArchive) Unwrap() error { return persist.ErrNotFound }

// ArchiveList prints the latest shift's archives, one a line: number, time, what it holds.
func ArchiveList(store *persist.Store, out io.Writer) error {
	info, err := latest(store)
	if err != nil {
		return err
	}
	entries, err := ArchiveEntries(store, info.ID)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		_, err := fmt.Fprintln(out, "no archives yet (a clear creates one)")
		return err
	}
	for _, e := range entries {
		fmt.Fprintf(out, "%3d  %s  %d patient(s), %d session message(s)\n", e.Number, archiveTime(e.ID),
			e.Patients, e.SessionMessages)
	}
	return nil
}

// archiveTime shows an archive's ID, a UTC timestamp, in local time to the second.
func archiveTime(id string) string {
	at, err := time.Parse(time.RFC3339Nano, id)
	if err != nil {
		return id
	}
	return at.Local().Format("2006-01-02 15:04:05")
}

// ArchiveShow prints one archive of the latest shift as JSON; masked, as a trainee may read it
// (view.go), as a dump is.
func ArchiveShow(store *persist.Store, ref string, out io.Writer, masked bool) error {
	info, entry, err := resolveArchive(store, ref)
	if err != nil {
		return err
	}
	a, err := store.ReadArchive(info.ID, entry.ID)
	if err != nil {
		return err
	}
	note := ""
	if masked {
		a.Content, note = maskContent(a.Content), maskedInDump
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Number int    `json:"number"`
		Masked string `json:"masked,omitempty"`
		persist.Archive
	}{entry.Number, note, a})
}

// ArchiveRestore puts an archive back into the latest shift. Content the shift holds is archived
// first, so nothing is lost; the reply says under which number.
func ArchiveRestore(store *persist.Store, ref string, out io.Writer) error {
	info, entry, err := resolveArchive(store, ref)
	if err != nil {
		return err
	}
	before, err := ArchiveEntries(store, info.ID)
	if err != nil {
		return err
	}
	if err := store.RestoreArchive(info.ID, entry.ID); err != nil {
		return err
	}
	fmt.Fprintf(out, "restored archive %d into shift %s", entry.Number, info.ID)
	if after, err := ArchiveEntries(store, info.ID); err == nil && len(after) > len(before) {
		fmt.Fprintf(out, "; what the shift held before is archive %d", after[len(after)-1].Number)
	}
	_, err = fmt.Fprintln(out)
	return err
}

func resolveArchive(store *persist.Store, ref string) (persist.SessionInfo, ArchiveEntry, error) {
	info, err := latest(store)
	if err != nil {
		return info, ArchiveEntry{}, err
	}
	entries, err := ArchiveEntries(store, info.ID)
	if err != nil {
		return info, ArchiveEntry{}, err
	}
	entry, err := FindArchive(entries, ref)
	return info, entry, err
}
