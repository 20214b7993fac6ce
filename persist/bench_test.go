package persist

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

// The benchmarks run on a session of benchPatients patients with benchMessages messages each,
// the size a turn is budgeted against in BENCHMARKS.md.
const (
	benchPatients = 100
	benchMessages = 1000
	benchSession  = "bench"
)

// benchFixture is built once per test process, then copied for each benchmark so that their
// writes do not affect one another.
var benchFixture struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func removeBenchFixture() {
	if benchFixture.dir != "" {
		_ = os.RemoveAll(benchFixture.dir)
	}
}

func benchStore(b *testing.B) *Store {
	b.Helper()
	benchFixture.once.Do(buildBenchFixture)
	if benchFixture.err != nil {
		b.Fatal(benchFixture.err)
	}
	path := filepath.Join(b.TempDir(), "ward.db")
	if err := copyFile(path, benchFixture.path); err != nil {
		b.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// buildBenchFixture writes the whole fixture in one transaction: one commit instead of 100,000.
func buildBenchFixture() {
	f := &benchFixture
	if f.dir, f.err = os.MkdirTemp("", "ward-persist-bench-"); f.err != nil {
		return
	}
	f.path = filepath.Join(f.dir, "ward.db")
	s, err := Open(f.path)
	if err != nil {
		f.err = err
		return
	}
	defer s.Close()
	if f.err = s.CreateSession(SessionInfo{ID: benchSession, CreatedAt: t0}); f.err != nil {
		return
	}
	f.err = s.Update(benchSession, func(tx *Tx) error {
		reg := Registry{ActivePatientID: benchPatient(0), Patients: map[string]PatientEntry{}}
		msgs := make([]memory.Message, benchMessages)
		for i := range msgs {
			msgs[i] = benchMessage(i)
		}
		for p := range benchPatients {
			pid := benchPatient(p)
			if err := tx.Append(pid, msgs...); err != nil {
				return err
			}
			reg.Patients[pid] = PatientEntry{PatientID: pid, CreatedAt: t0, UpdatedAt: t0,
				Facts: map[string]any{"age": 40 + p%50, "scenario": "sepsis", "allergies": []string{"penicillin"}}}
		}
		return tx.PutRegistry(reg)
	})
}

func benchPatient(p int) string { return fmt.Sprintf("patient_%d", p) }

// benchMessage is about the size of a real turn.
func benchMessage(i int) memory.Message {
	if i%2 == 0 {
		return memory.Message{Role: "user", At: t0.Add(time.Duration(i) * time.Second),
			Content: "Give 1 g paracetamol IV, repeat the obs in 15 minutes and tell me if the systolic drops below 90."}
	}
	return memory.Message{Role: "assistant", Agent: "nurse", At: t0.Add(time.Duration(i) * time.Second),
		Content: "Paracetamol 1 g IV is running. Current obs: HR 112, BP 98/61, RR 22, SpO2 95% on 2 L, temp 38.6. " +
			"She says the chills are easing. I will repeat the set at 22:15 and call you if the systolic falls under 90."}
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// BenchmarkAppend is one durable commit of one message, as a turn stores the typed text.
func BenchmarkAppend(b *testing.B) {
	s := benchStore(b)
	m := benchMessage(0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		err := s.Update(benchSession, func(tx *Tx) error { return tx.Append(benchPatient(i%benchPatients), m) })
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecent reads a conversation window from one patient's 1,000-message history.
func BenchmarkRecent(b *testing.B) {
	s := benchStore(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		err := s.View(benchSession, func(tx *Tx) error {
			msgs, err := tx.Recent(benchPatient(i%benchPatients), 10)
			if len(msgs) != 10 {
				b.Fatalf("Recent returned %d messages", len(msgs))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegistryRoundTrip reads the 100-patient registry, changes the active patient and
// writes it back in one durable commit, as a switch does.
func BenchmarkRegistryRoundTrip(b *testing.B) {
	s := benchStore(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		err := s.Update(benchSession, func(tx *Tx) error {
			reg, err := tx.Registry()
			if err != nil {
				return err
			}
			reg.ActivePatientID = benchPatient(i % benchPatients)
			return tx.PutRegistry(reg)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen opens and closes the 100-patient database, as every ward command does.
func BenchmarkOpen(b *testing.B) {
	benchStore(b).Close()
	path := filepath.Join(b.TempDir(), "ward.db")
	if err := copyFile(path, benchFixture.path); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkSignIn is a trainee's passphrase opening their data key at the cost a real database
// uses (argon2id, RFC 9106's second recommended setting): what starting ward costs once.
func BenchmarkSignIn(b *testing.B) {
	saved := kdfCost
	kdfCost = recommendedKDF
	b.Cleanup(func() { kdfCost = saved })
	s, err := Open(filepath.Join(b.TempDir(), "ward.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Protect([]byte("the night sister holds the keys")); err != nil {
		b.Fatal(err)
	}
	if err := s.Enrol("alice", []byte("alice on the night shift")); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyLatest reads the 100-patient shift whole, as a command that plays a shift does
// before it writes (OpenAs with Play), to refuse a file `ward dump` would call damaged.
func BenchmarkVerifyLatest(b *testing.B) {
	s := benchStore(b)
	for b.Loop() {
		if err := s.VerifyLatest(); err != nil {
			b.Fatal(err)
		}
	}
}
