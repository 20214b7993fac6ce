package persist

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

// fixtureMessages per patient is enough for branch pages in every history.
const fixtureMessages = 150

var fixturePatients = []string{"patient_1", "patient_2", "patient_3"}

// damageFixture writes a closed ward database with two sessions, an archive and branch pages,
// and returns its path. Every message's content is unique and names its session, patient and
// number, so a test can find the page that holds it.
func damageFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ward.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, sid := range []string{"s1", "s2"} {
		newSession(t, s, sid)
		fillSession(t, s, sid, sid+" archived")
		if _, err := s.Archive(sid, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		fillSession(t, s, sid, sid+" live")
		mustUpdate(t, s, sid, func(tx *Tx) error {
			for _, pid := range fixturePatients {
				for i := range fixtureMessages {
					if err := tx.Append(pid, fixtureMessage(sid, pid, i)); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	return path
}

func fixtureMessage(sid, pid string, i int) memory.Message {
	return msg("user", fmt.Sprintf("%s %s message %03d: %s", sid, pid, i, strings.Repeat("obs ", 30)), i)
}

// damagedCopy copies the fixture, lets damage change the copy's bytes, and returns its path.
func damagedCopy(t *testing.T, fixture string, damage func(data []byte) []byte) string {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "damaged.db")
	if err := os.WriteFile(path, damage(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixtureMeta reads the fixture's page size and pages in use.
func fixtureMeta(t *testing.T, path string) (pageSize, pages uint64) {
	t.Helper()
	r, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	return r.pageSize, r.meta.pages
}

// pageHolding returns the page in use whose bytes hold needle: a freed page may hold an older
// copy.
func pageHolding(t *testing.T, path string, data []byte, needle string) uint64 {
	t.Helper()
	r, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	w := newWalker(r, true, nil)
	if err := w.tree(bucketRef{root: r.meta.root}); err != nil {
		t.Fatal(err)
	}
	for id := uint64(2); id < r.meta.pages; id++ {
		if w.seen.has(id) && bytes.Contains(data[id*r.pageSize:(id+1)*r.pageSize], []byte(needle)) {
			return id
		}
	}
	t.Fatalf("%q is in no page in use", needle)
	return 0
}

// wantRefused opens path and checks that it is refused as damaged with one line that names the
// file, says why (want) and how to recover, and that the file is unchanged.
func wantRefused(t *testing.T, path, want string) {
	t.Helper()
	before := fileHash(t, path)
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open accepted the damaged file")
	}
	wantDamaged(t, err, path, want)
	if fileHash(t, path) != before {
		t.Error("the damaged file was modified")
	}
}

func wantDamaged(t *testing.T, err error, path, want string) {
	t.Helper()
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("err = %v, want ErrDamaged", err)
	}
	msg := err.Error()
	for _, part := range []string{"the database " + path + " is damaged", want, "ward recover --db " + path + " --out NEW"} {
		if !strings.Contains(msg, part) {
			t.Errorf("message %q lacks %q", msg, part)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q is not one line", msg)
	}
}

func TestOpenRefusesTruncatedFile(t *testing.T) {
	fixture := damageFixture(t)
	pageSize, pages := fixtureMeta(t, fixture)
	for n := uint64(1); n < pages; n++ {
		for _, size := range []uint64{n * pageSize, n*pageSize + pageSize/2} {
			t.Run(fmt.Sprint(size), func(t *testing.T) {
				path := damagedCopy(t, fixture, func(data []byte) []byte { return data[:size] })
				wantRefused(t, path, fmt.Sprintf("it is %d bytes long but its pages take %d: it was cut short", size, pages*pageSize))
			})
		}
	}
}

func TestOpenRefusesDamagedPages(t *testing.T) {
	fixture := damageFixture(t)
	pageSize, _ := fixtureMeta(t, fixture)
	at := func(data []byte, needle string) []byte {
		id := pageHolding(t, fixture, data, needle)
		return data[id*pageSize : (id+1)*pageSize]
	}
	tests := []struct {
		name   string
		damage func(data []byte) []byte
		want   string
	}{
		{"both meta pages", func(data []byte) []byte {
			data[metaOffset+48] ^= 1 // the transaction id, under the checksum
			data[pageSize+metaOffset+48] ^= 1
			return data
		}, "both of its meta pages are damaged"},
		{"a page that names another", func(data []byte) []byte {
			order.PutUint64(at(data, "s1 patient_2 message 042"), 3)
			return data
		}, "identifies itself as page 3"},
		{"a page of no known type", func(data []byte) []byte {
			order.PutUint16(at(data, "s1 patient_2 message 042")[8:], 0x08)
			return data
		}, "has flags 0x8, not a branch's or a leaf's"},
		{"an element pointing outside its page", func(data []byte) []byte {
			order.PutUint32(at(data, "s2 patient_3 message 100")[pageHeaderSize+4:], 1<<20) // element 0's pos
			return data
		}, "element 0 points outside the page"},
		{"keys out of order", func(data []byte) []byte {
			p := parsePage(at(data, "s2 patient_1 message 077"))
			_, key, _, _, err := p.element(1)
			if err != nil || len(key) != 8 {
				t.Fatalf("element 1: %v", err)
			}
			copy(key, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
			return data
		}, "is out of order"},
		{"an inline bucket's page that names a page", func(data []byte) []byte {
			// s2's memory bucket is inline: one element (patient_1), its key, then its document,
			// after the bucket's page header.
			doc := `{"memory":"s2 live"}`
			page := at(data, doc)
			order.PutUint64(page[bytes.Index(page, []byte(doc))-len("patient_1")-elementSize-pageHeaderSize:], 1<<40)
			return data
		}, "an inline bucket's page header is damaged (id 1099511627776, flags 0x2)"},
		{"the sessions bucket renamed", func(data []byte) []byte {
			page := at(data, "sessions")
			copy(page[bytes.Index(page, []byte("sessions")):], "sessionz")
			return data
		}, "its sessions bucket is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantRefused(t, damagedCopy(t, fixture, tt.damage), tt.want)
		})
	}
}

func TestReadsNameDamagedValues(t *testing.T) {
	fixture := damageFixture(t)
	tests := []struct {
		name, needle, with string
		read               func(s *Store) error
		want               string
	}{
		{"a message", `"s1 patient_3 message 007`, "\"s1 patient_3 message 00\x01", func(s *Store) error {
			return s.View("s1", func(tx *Tx) error {
				_, err := tx.History("patient_3")
				return err
			})
		}, "a stored value does not decode: invalid character '\\x01' in string literal"},
		{"a recent message", `"s1 patient_3 message 149`, "\"s1 patient_3 message 14\x01", func(s *Store) error {
			return s.View("s1", func(tx *Tx) error {
				_, err := tx.Recent("patient_3", 5)
				return err
			})
		}, "a stored value does not decode"},
		{"a message read from its place", `"s1 patient_3 message 148`, "\"s1 patient_3 message 14\x01", func(s *Store) error {
			return s.View("s1", func(tx *Tx) error {
				_, err := tx.From("patient_3", 140)
				return err
			})
		}, "a stored value does not decode"},
		{"a document in a dump", `{"memory":"s2 live"}`, `{"memory":"s2 live"!`, func(s *Store) error {
			_, err := s.Dump("s2")
			return err
		}, "memory document of patient_1: a stored value does not decode: not valid JSON"},
		{"a document, before a write", `{"memory":"s2 live"}`, `{"memory":"s2 live"!`, func(s *Store) error {
			return s.VerifyLatest()
		}, "memory/patient_1: a stored value does not decode: not valid JSON"},
		{"a session's info", `"id":"s2"`, `"id":"s3"`, func(s *Store) error {
			_, _, err := s.LatestSession()
			return err
		}, `session "s2": a stored value does not decode: its info names session "s3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := damagedCopy(t, fixture, func(data []byte) []byte {
				pageSize, _ := fixtureMeta(t, fixture)
				id := pageHolding(t, fixture, data, tt.needle)
				page := data[id*pageSize : (id+1)*pageSize]
				copy(page[bytes.Index(page, []byte(tt.needle)):], tt.with)
				return data
			})
			before := fileHash(t, path)
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			wantDamaged(t, tt.read(s), path, tt.want)
			s.Close()
			if fileHash(t, path) != before {
				t.Error("reading the file modified it")
			}
		})
	}
}

// TestRandomDamageNeverCrashes flips random bytes of the pages in use: Open and every read
// either work or say the file is damaged, and never write to it.
func TestRandomDamageNeverCrashes(t *testing.T) {
	fixture := damageFixture(t)
	pageSize, pages := fixtureMeta(t, fixture)
	rng := rand.New(rand.NewPCG(1, 2))
	runs := 200
	if testing.Short() {
		runs = 50
	}
	refused := 0
	for run := range runs {
		path := damagedCopy(t, fixture, func(data []byte) []byte {
			for range 1 + rng.IntN(8) {
				data[rng.Uint64N(pages*pageSize)] ^= byte(1 + rng.IntN(255))
			}
			return data
		})
		before := fileHash(t, path)
		if err := readEverything(path); err != nil {
			if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrNotWard) {
				t.Errorf("run %d: %v", run, err)
			}
			refused++
		}
		if fileHash(t, path) != before {
			t.Errorf("run %d: the file was modified", run)
		}
	}
	t.Logf("%d of %d damaged files refused; the others read back", refused, runs)
}

// readEverything opens the file and reads every session, history and archive.
func readEverything(path string) error {
	s, err := Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, sid := range []string{"s1", "s2"} {
		if _, err := s.Dump(sid); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		sums, err := s.ArchiveSummaries(sid)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		for _, a := range sums {
			if _, err := s.ReadArchive(sid, a.ID); err != nil {
				return err
			}
		}
	}
	_, _, err = s.LatestSession()
	return err
}

// TestAPlayedFileIsCheckedBeforeItsFirstWrite: OpenAs for a command that plays a shift opens
// without reading the latest shift whole, and checks it meanwhile; the first write waits for the
// check, so a damaged file is refused before anything is written to it, as is a new sign-in,
// while a sound file's writes go through.
func TestAPlayedFileIsCheckedBeforeItsFirstWrite(t *testing.T) {
	fixture := damageFixture(t)
	path := damagedCopy(t, fixture, func(data []byte) []byte {
		pageSize, _ := fixtureMeta(t, fixture)
		id := pageHolding(t, fixture, data, `{"memory":"s2 live"}`)
		page := data[id*pageSize : (id+1)*pageSize]
		copy(page[bytes.Index(page, []byte(`{"memory":"s2 live"}`)):], `{"memory":"s2 live"!`)
		return data
	})
	before := fileHash(t, path)
	s, err := OpenAs(path, Access{Play: true})
	if err != nil {
		t.Fatalf("the file is refused at opening, before the screen could open: %v", err)
	}
	const want = "memory/patient_1: a stored value does not decode: not valid JSON"
	wantDamaged(t, s.Update("s2", func(tx *Tx) error { return tx.Append("patient_1", msg("user", "a line", 1)) }), path, want)
	wantDamaged(t, s.CreateSession(SessionInfo{ID: "s3", CreatedAt: t0, Shift: "quiet-night"}), path, want)
	wantDamaged(t, s.Verified(), path, want)
	wantDamaged(t, s.SignIn(Person{Trainee: "bob"}, nil), path, want)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fileHash(t, path) != before {
		t.Error("a write reached the damaged file")
	}

	sound := damagedCopy(t, fixture, func(data []byte) []byte { return data })
	s, err = OpenAs(sound, Access{Play: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update("s2", func(tx *Tx) error { return tx.Append("patient_1", msg("user", "a line", 1)) }); err != nil {
		t.Fatalf("a sound file's write: %v", err)
	}
	if err := s.Verified(); err != nil {
		t.Fatal(err)
	}
}
