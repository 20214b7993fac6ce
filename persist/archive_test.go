package persist

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
	bolt "go.etcd.io/bbolt"
)

// fillSession stores a registry, histories and documents tagged with tag, and returns them.
func fillSession(t *testing.T, s *Store, sid, tag string) Content {
	t.Helper()
	entry := func(id string) PatientEntry {
		return PatientEntry{PatientID: id, Facts: map[string]any{"tag": tag}, CreatedAt: t0, UpdatedAt: t0}
	}
	doc := func(kind string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"patient_1": json.RawMessage(`{"` + kind + `":"` + tag + `"}`)}
	}
	want := Content{
		Registry: Registry{ActivePatientID: "patient_1", Patients: map[string]PatientEntry{
			"patient_1": entry("patient_1"), "patient_2": entry("patient_2"),
		}},
		SessionHistory: []memory.Message{msg("user", tag+" before any patient", 0)},
		Histories: map[string][]memory.Message{
			"patient_1": {msg("user", tag+" p1", 1), {Role: "assistant", Agent: "nurse", Content: tag + " reply", At: t0}},
			"patient_2": {msg("user", tag+" p2", 2)},
		},
		Memory:   doc(KindMemory),
		Entities: doc(KindEntities),
		Sim:      doc(KindSim),
	}
	mustUpdate(t, s, sid, func(tx *Tx) error {
		if err := tx.PutRegistry(want.Registry); err != nil {
			return err
		}
		if err := tx.Append("", want.SessionHistory...); err != nil {
			return err
		}
		for pid, msgs := range want.Histories {
			if err := tx.Append(pid, msgs...); err != nil {
				return err
			}
		}
		for kind, docs := range map[string]map[string]json.RawMessage{
			KindMemory: want.Memory, KindEntities: want.Entities, KindSim: want.Sim,
		} {
			for pid, d := range docs {
				if err := tx.PutPatientDoc(kind, pid, d); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return want
}

func emptyContent() Content {
	return Content{
		Registry:       Registry{Patients: map[string]PatientEntry{}},
		SessionHistory: []memory.Message{},
		Histories:      map[string][]memory.Message{},
		Memory:         map[string]json.RawMessage{},
		Entities:       map[string]json.RawMessage{},
		Sim:            map[string]json.RawMessage{},
	}
}

func content(t *testing.T, s *Store, sid string) Content {
	t.Helper()
	d, err := s.Dump(sid)
	if err != nil {
		t.Fatal(err)
	}
	return d.Content
}

func archives(t *testing.T, s *Store, sid string) []Archive {
	t.Helper()
	d, err := s.Dump(sid)
	if err != nil {
		t.Fatal(err)
	}
	return d.Archives
}

func TestArchiveMovesContentIntoOneSnapshot(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	newSession(t, s, "s2")
	want := fillSession(t, s, "s1", "A")
	other := fillSession(t, s, "s2", "other")

	id, err := s.Archive("s1", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	all := archives(t, s, "s1")
	if len(all) != 1 {
		t.Fatalf("Archives = %+v, want the one snapshot", all)
	}
	a := all[0]
	if id != a.ID || a.ID != "2025-03-01T23:00:00.000000000Z" || !a.CreatedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("archive id %q created %v", a.ID, a.CreatedAt)
	}
	if !reflect.DeepEqual(a.Content, want) {
		t.Errorf("archived %+v\nwant     %+v", a.Content, want)
	}
	if got := content(t, s, "s1"); !reflect.DeepEqual(got, emptyContent()) {
		t.Errorf("after archive the session holds %+v", got)
	}
	if got := content(t, s, "s2"); !reflect.DeepEqual(got, other) {
		t.Errorf("another session changed: %+v", got)
	}
	mustView(t, s, "s1", func(tx *Tx) error {
		info, err := tx.Info()
		if info.ID != "s1" || info.Shift != "quiet-night" {
			t.Errorf("info lost: %+v", info)
		}
		return err
	})
	_ = s.db.View(func(tx *bolt.Tx) error {
		if n := tx.Bucket(bucketArchive).Bucket([]byte("s1")).Stats().BucketN; n != 1+1+1+5+2 {
			// archive/s1, the snapshot, its registry's bucket, its five content buckets, two patient histories
			t.Errorf("archive/s1 holds %d buckets, want one snapshot's 10", n)
		}
		return nil
	})
}

func TestArchivesAreListedOldestFirst(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	if got := archives(t, s, "s1"); got == nil || len(got) != 0 {
		t.Errorf("Archives of a new session = %#v, want empty", got)
	}
	// Trimmed RFC 3339 strings would sort these wrongly (".5Z" after ".12Z", "Z" after ".5Z").
	base := t0.Add(5 * time.Second)
	for _, at := range []time.Time{base.Add(500 * time.Millisecond), base, base.Add(120 * time.Millisecond)} {
		if _, err := s.Archive("s1", at); err != nil {
			t.Fatal(err)
		}
	}
	var got []time.Time
	for _, a := range archives(t, s, "s1") {
		got = append(got, a.CreatedAt)
	}
	want := []time.Time{base, base.Add(120 * time.Millisecond), base.Add(500 * time.Millisecond)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

func TestArchiveAtSameInstantFailsAndKeepsContent(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	if _, err := s.Archive("s1", t0); err != nil {
		t.Fatal(err)
	}
	want := fillSession(t, s, "s1", "B")
	if _, err := s.Archive("s1", t0); err == nil {
		t.Fatal("second archive at the same instant succeeded")
	}
	if got := content(t, s, "s1"); !reflect.DeepEqual(got, want) {
		t.Errorf("content after the failed archive = %+v", got)
	}
}

func TestRestoreArchive(t *testing.T) {
	tests := []struct {
		name         string
		before       func(t *testing.T, s *Store) Content // state at restore time; zero = empty
		wantArchives int
	}{
		{"into an empty session", func(*testing.T, *Store) Content { return Content{} }, 1},
		{"into a cleared session with an empty registry", func(t *testing.T, s *Store) Content {
			mustUpdate(t, s, "s1", func(tx *Tx) error { return tx.PutRegistry(Registry{}) })
			return Content{}
		}, 1},
		{"into a session with content, which is archived first", func(t *testing.T, s *Store) Content {
			return fillSession(t, s, "s1", "B")
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTemp(t)
			newSession(t, s, "s1")
			want := fillSession(t, s, "s1", "A")
			id, err := s.Archive("s1", t0)
			if err != nil {
				t.Fatal(err)
			}
			current := tt.before(t, s)

			if err := s.RestoreArchive("s1", id); err != nil {
				t.Fatal(err)
			}
			if got := content(t, s, "s1"); !reflect.DeepEqual(got, want) {
				t.Errorf("restored %+v\nwant     %+v", got, want)
			}
			list := archives(t, s, "s1")
			if len(list) != tt.wantArchives || list[0].ID != id || !reflect.DeepEqual(list[0].Content, want) {
				t.Fatalf("%d archives, want %d starting with the restored one", len(list), tt.wantArchives)
			}
			if tt.wantArchives == 2 && !reflect.DeepEqual(list[1].Content, current) {
				t.Errorf("the replaced content was archived as %+v, want %+v", list[1].Content, current)
			}

			// Appends continue after the restored keys instead of overwriting them.
			next := msg("user", "after restore", 9)
			appendMsgs(t, s, "s1", "patient_1", next)
			if got, want := history(t, s, "s1", "patient_1"), append(want.Histories["patient_1"], next); !reflect.DeepEqual(got, want) {
				t.Errorf("history after restore and append = %v, want %v", got, want)
			}
		})
	}
}

func TestRestoreUnknownArchiveChangesNothing(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	want := fillSession(t, s, "s1", "A")
	if err := s.RestoreArchive("s1", "2025-01-01T00:00:00.000000000Z"); !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	if got := content(t, s, "s1"); !reflect.DeepEqual(got, want) {
		t.Errorf("content changed: %+v", got)
	}
	if got := archives(t, s, "s1"); len(got) != 0 {
		t.Errorf("%d archives, want none", len(got))
	}
}

// A list of archives comes from each snapshot's registry and key counts; one archive reads back
// whole.
func TestArchiveSummariesAndReadArchive(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	want := fillSession(t, s, "s1", "A")
	first, err := s.Archive("s1", t0)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Archive("s1", t0.Add(time.Minute)) // of the now empty session
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.ArchiveSummaries("s1")
	if err != nil {
		t.Fatal(err)
	}
	wantList := []ArchiveSummary{{ID: first, Patients: 2, SessionMessages: 1}, {ID: second}}
	if !reflect.DeepEqual(list, wantList) {
		t.Errorf("summaries %+v, want %+v", list, wantList)
	}
	a, err := s.ReadArchive("s1", first)
	if err != nil || !reflect.DeepEqual(a.Content, want) {
		t.Errorf("ReadArchive = %+v, %v; want the archived content", a.Content, err)
	}
	if _, err := s.ReadArchive("s1", "2020-01-01T00:00:00.000000000Z"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing archive: %v, want ErrNotFound", err)
	}
}
