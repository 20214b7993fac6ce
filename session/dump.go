package session

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ward-sim/ward/persist"
)

// Dump returns the stored state of the latest shift, shaped as the `ward dump` document.
func Dump(store *persist.Store) (persist.Dump, error) {
	info, err := latest(store)
	if err != nil {
		return persist.Dump{}, err
	}
	return store.Dump(info.ID)
}

func latest(store *persist.Store) (persist.SessionInfo, error) {
	info, ok, err := store.LatestSession()
	if err == nil && !ok {
		err = ErrNoSession
	}
	return info, err
}

// ArchiveCommand runs `ward archive list | show ID | restore ID` on the latest shift.
func ArchiveCommand(store *persist.Store, args []string, out io.Writer) error {
	info, err := latest(store)
	if err != nil {
		return err
	}
	archives, err := store.Archives(info.ID)
	if err != nil {
		return err
	}
	switch {
	case args[0] == "list" && len(args) == 1:
		return listArchives(archives, out)
	case args[0] == "show" && len(args) == 2:
		a, err := findArchive(archives, args[1])
		if err != nil {
			return err
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	case args[0] == "restore" && len(args) == 2:
		if _, err := findArchive(archives, args[1]); err != nil {
			return err
		}
		if err := store.RestoreArchive(info.ID, args[1]); err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "restored archive %s into shift %s\n", args[1], info.ID)
		return err
	}
	return fmt.Errorf("usage: ward archive list | show ID | restore ID")
}

func listArchives(archives []persist.Archive, out io.Writer) error {
	if len(archives) == 0 {
		_, err := fmt.Fprintln(out, "no archives yet (a clear creates one)")
		return err
	}
	for _, a := range archives {
		fmt.Fprintf(out, "%s  %d patient(s), %d session message(s)\n",
			a.ID, len(a.Registry.Patients), len(a.SessionHistory))
	}
	return nil
}

func findArchive(archives []persist.Archive, id string) (persist.Archive, error) {
	for _, a := range archives {
		if a.ID == id {
			return a, nil
		}
	}
	return persist.Archive{}, fmt.Errorf("no archive %q in this shift — `ward archive list` shows them", id)
}
