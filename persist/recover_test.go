package persist

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
)

// recoverInto recovers path into a new file and checks what every recovery must do: the
// damaged file is unchanged, and the new one opens and reads back like any ward database.
func recoverInto(t *testing.T, path string) (RecoverReport, *Store) {
	t.Helper()
	before := fileHash(t, path)
	out := filepath.Join(t.TempDir(), "recovered.db")
	rep, err := Recover(path, out)
	if err != nil {
		t.Fatal(err)
	}
	if fileHash(t, path) != before {
		t.Error("Recover modified the damaged file")
	}
	s, err := Open(out)
	if err != nil {
		t.Fatalf("the recovered file does not open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if _, _, err := s.LatestSession(); err != nil {
		t.Fatal(err)
	}
	return rep, s
}

func dumps(t *testing.T, path string) map[string]Dump {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return dumpAll(t, s)
}

func dumpAll(t *testing.T, s *Store) map[string]Dump {
	t.Helper()
	all := map[string]Dump{}
	for _, sid := range []string{"s1", "s2"} {
		d, err := s.Dump(sid)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		all[sid] = d
	}
	return all
}

func TestRecoverHealthyFileLosesNothing(t *testing.T) {
	fixture := damageFixture(t)
	rep, s := recoverInto(t, fixture)
	if len(rep.Lost) > 0 {
		t.Errorf("losses from a healthy file: %+v", rep.Lost)
	}
	// 2 sessions × (1 archived + 1 live message in the session history, 3 + 150×3 in histories)
	want := RecoverReport{Path: rep.Path, Sessions: 2, Archives: 2, Messages: 2 * (2 + 2*3 + 3*fixtureMessages), Documents: 2 * 2 * 4}
	if !reflect.DeepEqual(rep, want) {
		t.Errorf("report = %+v, want %+v", rep, want)
	}
	if got, want := dumpAll(t, s), dumps(t, fixture); !reflect.DeepEqual(got, want) {
		t.Error("the recovered sessions differ from the original ones")
	}
	if got := rep.String(); got != fmt.Sprintf("recovered 2 session(s), 2 archive(s), %d message(s) and 16 document(s) into %s\nnothing was lost\n", want.Messages, rep.Path) {
		t.Errorf("report reads %q", got)
	}
}

func TestRecoverDamagedPageReportsItsMessages(t *testing.T) {
	fixture := damageFixture(t)
	pageSize, _ := fixtureMeta(t, fixture)
	var lostOnPage int
	path := damagedCopy(t, fixture, func(data []byte) []byte {
		page := data[pageHolding(t, fixture, data, "s1 patient_2 message 042")*pageSize:][:pageSize]
		lostOnPage = parsePage(page).count
		order.PutUint64(page, 0) // the page no longer says which page it is
		return data
	})
	rep, s := recoverInto(t, path)
	where := "sessions/s1/histories/patient_2"
	want := []Loss{{Where: where, Values: lostOnPage, Unreadable: 1, Why: rep.Lost[0].Why}}
	if !reflect.DeepEqual(rep.Lost, want) || !strings.Contains(rep.Lost[0].Why, "identifies itself as page 0") {
		t.Fatalf("losses = %+v, want %d messages and 1 page in %s", rep.Lost, lostOnPage, where)
	}
	line := fmt.Sprintf("lost in %s: %d value(s), 1 unreadable page(s) or entries (page ", where, lostOnPage)
	if !strings.Contains(rep.String(), line) {
		t.Errorf("report %q lacks %q", rep.String(), line)
	}
	orig, got := dumps(t, fixture)["s1"].Histories["patient_2"], history(t, s, "s1", "patient_2")
	if len(got) != len(orig)-lostOnPage || !isSubsequence(got, orig) {
		t.Errorf("recovered %d of %d messages, want the %d off the damaged page", len(got), len(orig), len(orig)-lostOnPage)
	}
	mustView(t, s, "s1", func(tx *Tx) error {
		if tx.Len("patient_2") != len(got) {
			t.Errorf("Len = %d, want %d: the history was not numbered again", tx.Len("patient_2"), len(got))
		}
		return nil
	})
	if a, b := dumpAll(t, s)["s2"], dumps(t, fixture)["s2"]; !reflect.DeepEqual(a, b) {
		t.Error("the undamaged session s2 changed")
	}
}

func TestRecoverLeavesOutValuesThatDoNotDecode(t *testing.T) {
	fixture := damageFixture(t)
	pageSize, _ := fixtureMeta(t, fixture)
	path := damagedCopy(t, fixture, func(data []byte) []byte {
		needle := `"s2 patient_1 message 010`
		page := data[pageHolding(t, fixture, data, needle)*pageSize:][:pageSize]
		copy(page[strings.Index(string(page), needle):], "\"\x01")
		return data
	})
	rep, s := recoverInto(t, path)
	if len(rep.Lost) != 1 || rep.Lost[0].Where != "sessions/s2/histories/patient_1" || rep.Lost[0].Values != 1 {
		t.Fatalf("losses = %+v, want 1 message of s2's patient_1", rep.Lost)
	}
	got := history(t, s, "s2", "patient_1")
	if len(got) != 2+fixtureMessages-1 || slices.ContainsFunc(got, func(m memory.Message) bool { return strings.Contains(m.Content, "message 010") }) {
		t.Errorf("recovered %d messages; want all but message 010", len(got))
	}
}

// TestRecoverTruncatedFiles cuts the file at every page: whatever is left, Recover writes a file
// that opens and reads, with only messages of the original, in order.
func TestRecoverTruncatedFiles(t *testing.T) {
	fixture := damageFixture(t)
	pageSize, pages := fixtureMeta(t, fixture)
	orig := dumps(t, fixture)
	for n := uint64(1); n < pages; n++ {
		path := damagedCopy(t, fixture, func(data []byte) []byte { return data[:n*pageSize] })
		rep, s := recoverInto(t, path)
		if len(rep.Lost) == 0 {
			t.Errorf("cut at page %d: nothing reported lost", n)
		}
		checkSubset(t, dumpAll(t, s), orig)
	}
}

// TestRecoverRandomDamage flips random bytes: Recover always writes a file that reads back, and
// never more messages than a history had.
func TestRecoverRandomDamage(t *testing.T) {
	fixture := damageFixture(t)
	pageSize, pages := fixtureMeta(t, fixture)
	orig := dumps(t, fixture)
	rng := rand.New(rand.NewPCG(3, 4))
	runs := 50
	if testing.Short() {
		runs = 20
	}
	for range runs {
		path := damagedCopy(t, fixture, func(data []byte) []byte {
			for range 1 + rng.IntN(8) {
				data[rng.Uint64N(pages*pageSize)] ^= byte(1 + rng.IntN(255))
			}
			return data
		})
		_, s := recoverInto(t, path)
		for sid, d := range dumpAll(t, s) {
			for pid, msgs := range d.Histories {
				if o, ok := orig[sid].Histories[pid]; ok && len(msgs) > len(o) {
					t.Errorf("%s/%s: %d messages recovered of %d", sid, pid, len(msgs), len(o))
				}
			}
		}
	}
}

// checkSubset checks that each recovered history holds messages of the original's, in order.
func checkSubset(t *testing.T, got, orig map[string]Dump) {
	t.Helper()
	for sid, d := range got {
		for pid, msgs := range d.Histories {
			if !isSubsequence(msgs, orig[sid].Histories[pid]) {
				t.Errorf("%s/%s: the recovered messages are not the original's in order", sid, pid)
			}
		}
	}
}

func isSubsequence(sub, seq []memory.Message) bool {
	i := 0
	for _, m := range seq {
		if i < len(sub) && reflect.DeepEqual(sub[i], m) {
			i++
		}
	}
	return i == len(sub)
}

func TestRecoverRefuses(t *testing.T) {
	fixture := damageFixture(t)
	dir := t.TempDir()
	notBolt := filepath.Join(dir, "text.db")
	writeBytes([]byte("hello, not a database\n"))(t, notBolt)
	pageSize, _ := fixtureMeta(t, fixture)
	noMeta := damagedCopy(t, fixture, func(data []byte) []byte {
		data[metaOffset+48] ^= 1
		data[pageSize+metaOffset+48] ^= 1
		return data
	})
	tests := []struct {
		name, from, to, want string
	}{
		{"an existing file", fixture, notBolt, "recover: " + notBolt + " already exists; name a new file"},
		{"the damaged file itself", fixture, fixture, "recover: " + fixture + " already exists; name a new file"},
		{"a file that is not bbolt's", notBolt, filepath.Join(dir, "new.db"), notBolt + " is not a ward database (not a bbolt file)"},
		{"no meta page", noMeta, filepath.Join(dir, "new2.db"), "recover: nothing in " + noMeta + " can be read (both of its meta pages are damaged)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Recover(tt.from, tt.to)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestRecoverSessionWithADamagedKey: a session's key that disagrees with its info takes the
// info's id back, so that it finds its archives again.
func TestRecoverSessionWithADamagedKey(t *testing.T) {
	fixture := damageFixture(t)
	pageSize, _ := fixtureMeta(t, fixture)
	path := damagedCopy(t, fixture, func(data []byte) []byte {
		page := data[sessionsPage(t, fixture)*pageSize:][:pageSize]
		page[strings.Index(string(page), "s2")+1] = 0xff // the key is now "s\xff"
		return data
	})
	damaged, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = damaged.LatestSession()
	damaged.Close()
	wantDamaged(t, err, path, `session "s\xff": a stored value does not decode: its info names session "s2"`)
	rep, s := recoverInto(t, path)
	want := []Loss{{Where: `sessions/"s\xff"`, Why: `its key was damaged or disagrees with its info; the session is now "s2"`}}
	if !reflect.DeepEqual(rep.Lost, want) {
		t.Errorf("losses = %+v, want %+v", rep.Lost, want)
	}
	if got, orig := dumpAll(t, s), dumps(t, fixture); !reflect.DeepEqual(got, orig) {
		t.Error("the recovered sessions differ from the original ones")
	}
}

// sessionsPage is the page that holds the sessions bucket's keys.
func sessionsPage(t *testing.T, path string) uint64 {
	t.Helper()
	r, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	var root uint64
	_ = newWalker(r, true, nil).bucket(bucketRef{root: r.meta.root}, func(e entry) error {
		if string(e.key) == string(bucketSessions) {
			b, err := parseBucket(e.value)
			if err != nil {
				t.Fatal(err)
			}
			root = b.root
		}
		return nil
	})
	if root == 0 {
		t.Fatal("the sessions bucket has no page of its own")
	}
	return root
}
