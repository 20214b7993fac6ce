package persist

import (
	"errors"
	"strings"
	"testing"
)

// The policy refuses short, common, repetitive, sequential and self-naming passphrases and
// says why; a few ordinary words pass.
func TestWeakPassphrasesAreRefused(t *testing.T) {
	cases := []struct {
		pass, trainee string
		instructor    bool
		why           string // "" = accepted
	}{
		{"x", "alice", false, "at least 12 characters, and this one has 1"},
		{"x2", "", true, "at least 16 characters, and this one has 2"},
		{"eleven char", "alice", false, "at least 12 characters, and this one has 11"},
		{"fifteen chars!!", "", true, "at least 16 characters, and this one has 15"},
		{"Password1234", "alice", false, "common passwords"},
		{"pass word 2026!!", "", true, "common passwords"},
		{"qwertyuiop12", "alice", false, "common passwords"},
		{"correct horse battery staple", "", true, "common passwords"},
		{"aaaaaaaaaaaaaaaa", "alice", false, "repeats one short pattern"},
		{"abcdabcdabcdabcd", "", true, "repeats one short pattern"},
		{"3456789012345", "alice", false, "consecutive characters"},
		{"ponmlkjihgfedcba", "", true, "consecutive characters"},
		{"alicealice2026", "alice", false, "trainee's name"},
		{"Instructor-Ward-1", "", true, "ward's own words"},
		{"aliceeeeeeee", "alice", false, "trainee's name"},
		{"aaaaaaaaaaab", "alice", false, "only 2 different characters"},
		{"ecilaecilaec", "alice", false, "trainee's name"},
		{"qwertyuiopas", "alice", false, "a walk along the keyboard"},
		{"zaq12wsxcde3", "alice", false, "a walk along the keyboard"},
		{"4l1c3 4l1c3 2026", "alice", false, "trainee's name"},
		{"alice alice alice!", "alice", false, "trainee's name"},
		{"we were there at noon", "alice", false, ""},
		{"alice on the night shift", "alice", false, ""},
		{"the night sister holds the keys", "", true, ""},
		{"ночная смена в палате", "alice", false, ""}, // characters, not bytes, are counted; any script is welcome
		{"7391 0274 5518", "alice", false, ""},
	}
	for _, tc := range cases {
		err := CheckPassphrase([]byte(tc.pass), tc.trainee, tc.instructor)
		switch {
		case tc.why == "" && err != nil:
			t.Errorf("%q refused: %v", tc.pass, err)
		case tc.why != "" && (!errors.Is(err, ErrWeakPassphrase) || !strings.Contains(err.Error(), tc.why)):
			t.Errorf("%q: %v, want it refused because %s", tc.pass, err, tc.why)
		}
	}
}

// Every way of choosing a passphrase applies the policy, and nothing is written when it refuses.
func TestWeakPassphrasesAreNotWritten(t *testing.T) {
	s, path := encryptedStore(t)
	before := fileHash(t, path)
	if err := s.Enrol("carol", []byte("carol123")); !errors.Is(err, ErrWeakPassphrase) {
		t.Errorf("enrol with a short passphrase: %v", err)
	}
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPassphrase("alice", []byte("password")); !errors.Is(err, ErrWeakPassphrase) {
		t.Errorf("a common trainee passphrase: %v", err)
	}
	if err := s.SetInstructorPassphrase([]byte("x2")); !errors.Is(err, ErrWeakPassphrase) {
		t.Errorf("a two-character instructor's passphrase: %v", err)
	}
	s.Close()
	if fileHash(t, path) != before {
		t.Error("a refused passphrase changed the file")
	}
	fresh, _ := openTemp(t)
	if err := fresh.Protect([]byte("instructor")); !errors.Is(err, ErrWeakPassphrase) {
		t.Errorf("protect with a short passphrase: %v", err)
	}
}

// A wrapped key whose argon2id parameters are beyond what ward writes is refused before argon2id
// runs: an edited file cannot make ward allocate gigabytes or spin for minutes.
func TestExtremeArgon2ParametersAreRefused(t *testing.T) {
	w := wrapWithPassphrase([]byte("alice on the night shift"), newDataKey(), "aad")
	for name, edit := range map[string]func(*passWrap){
		"4 GiB of memory":        func(w *passWrap) { w.MemoryKiB = 4 << 20 },
		"65 MiB of memory":       func(w *passWrap) { w.MemoryKiB = 65 * 1024 },
		"a million passes":       func(w *passWrap) { w.Time = 1 << 20 },
		"four passes":            func(w *passWrap) { w.Time = 4 },
		"255 lanes":              func(w *passWrap) { w.Threads = 255 },
		"no passes":              func(w *passWrap) { w.Time = 0 },
		"no lanes":               func(w *passWrap) { w.Threads = 0 },
		"less than 8 KiB a lane": func(w *passWrap) { w.MemoryKiB = 7 },
		"a short salt":           func(w *passWrap) { w.Salt = w.Salt[:4] },
	} {
		bad := w
		bad.Salt = append([]byte(nil), w.Salt...)
		edit(&bad)
		if _, err := bad.unwrap([]byte("alice on the night shift"), "aad"); err == nil || !strings.Contains(err.Error(), "outside what ward writes") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := w.unwrap([]byte("alice on the night shift"), "aad"); err != nil {
		t.Errorf("the wrap as ward wrote it: %v", err)
	}
	top := recommendedKDF
	w.Time, w.MemoryKiB, w.Threads = top.time, top.memoryKiB, top.threads
	if err := w.checkParams(); err != nil {
		t.Errorf("ward's own recommended cost is refused: %v", err)
	}
}

// Whatever bytes are offered, the policy answers nil or a refusal that says why: never a panic.
func FuzzCheckPassphrase(f *testing.F) {
	f.Add([]byte("alice on the night shift"), "alice", false)
	f.Add([]byte("Password1234!"), "", true)
	f.Add([]byte{0xff, 0xfe, 'a'}, "bob", false)
	f.Fuzz(func(t *testing.T, pass []byte, trainee string, instructor bool) {
		if err := CheckPassphrase(pass, trainee, instructor); err != nil && !errors.Is(err, ErrWeakPassphrase) {
			t.Fatalf("CheckPassphrase(%q) = %v, not a refusal", pass, err)
		}
	})
}
