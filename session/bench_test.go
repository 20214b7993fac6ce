package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/scenario/scenariotest"
)

// bigShift fills a store with patients × messages in a few large transactions, the shape the
// BENCHMARKS.md measures. An encrypted store seals them with the data key of a trainee.
func bigShift(b *testing.B, patients, perPatient int, encrypted bool) (*persist.Store, Config) {
	b.Helper()
	store, err := persist.Open(filepath.Join(b.TempDir(), "ward.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	if encrypted {
		if err := store.Protect([]byte("the night sister holds the keys")); err != nil {
			b.Fatal(err)
		}
		if err := store.Enrol("bench", []byte("bench on the night shift")); err != nil {
			b.Fatal(err)
		}
	}
	cfg := Config{Store: store, Backend: offline.New(), Analyzer: analyzer.NewAnalyzer(nil)}
	s, err := Start(cfg)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	reg := persist.Registry{Patients: map[string]persist.PatientEntry{}}
	for p := 1; p <= patients; p++ {
		id := fmt.Sprintf("patient_%d", p)
		reg.Patients[id] = persist.PatientEntry{PatientID: id, Facts: map[string]any{}, CreatedAt: at, UpdatedAt: at}
		msgs := make([]memory.Message, perPatient)
		for i := range msgs {
			msgs[i] = memory.Message{Role: "user", Content: fmt.Sprintf("message %d about %s: checking airway, breathing and circulation", i, id), At: at}
			if i%2 == 1 {
				msgs[i].Role, msgs[i].Agent = "assistant", "Patient"
			}
		}
		batch, err := store.NewBatch(s.ID())
		if err != nil {
			b.Fatal(err)
		}
		if p == patients {
			reg.ActivePatientID = id
			err = batch.PutRegistry(reg)
		}
		if err := errors.Join(err, batch.Append(id, msgs...), store.Update(s.ID(), func(tx *persist.Tx) error { return tx.Write(batch) })); err != nil {
			b.Fatal(err)
		}
	}
	return store, cfg
}

// BenchmarkContextTurn is one offline turn: decide, persist and snapshot, with no
// agent answering, on a shift of 100 patients × 1,000 messages with durable (fsynced) commits.
// Half of the inputs switch patient, which adds a registry commit and loads a history.
func BenchmarkContextTurn(b *testing.B) { benchmarkContextTurn(b, false) }

// BenchmarkContextTurnEncrypted is BenchmarkContextTurn on an encrypted database: every value
// read is opened and every value written sealed with the trainee's data key.
func BenchmarkContextTurnEncrypted(b *testing.B) { benchmarkContextTurn(b, true) }

func benchmarkContextTurn(b *testing.B, encrypted bool) {
	s := resumeBigShift(b, encrypted)
	inputs := []string{"how is your breathing now?", "switch to patient_42", "any pain anywhere?", "back to patient_100"}
	durations := make([]time.Duration, 0, b.N)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		t := newTurn(inputs[i%len(inputs)], func(Event) {})
		s.settle(ctx, t)
		s.commit(t, nil) // the commit a whole turn makes with its answer: the line and the registry
		_ = s.Conversation()
		durations = append(durations, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, durations)
}

func resumeBigShift(b *testing.B, encrypted bool) *Session {
	_, cfg := bigShift(b, 100, 1000, encrypted)
	s, err := Resume(cfg)
	if err != nil {
		b.Fatal(err)
	}
	s.Turn(context.Background(), "how are you?", func(Event) {}) // restore the active patient outside the measurement
	return s
}

func reportPercentiles(b *testing.B, durations []time.Duration) {
	b.ReportMetric(p50ms(durations), "p50-ms")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
}

// p50ms sorts durations and returns their median in milliseconds.
func p50ms(durations []time.Duration) float64 {
	slices.Sort(durations)
	return float64(durations[len(durations)/2].Microseconds()) / 1000
}

// writerMark is where the store's shared writer stood when a benchmark's timer started.
type writerMark struct {
	updates, all        time.Duration
	pageWrites, written int64
}

func markWriter(store *persist.Store) writerMark {
	updates, all := store.WriterTime()
	return writerMark{updates, all, store.PageWrites(), bytesWritten()}
}

// reportWriter reports, per turn, what the store's shared writer did since mark: its time in
// transactions before their commit (persist.Store.WriterTime), where every other session on the
// file waits for this one's work, its time in all, bbolt's page writes, and the bytes they were
// (the process writes nothing else; Linux only).
func reportWriter(b *testing.B, store *persist.Store, mark writerMark) {
	updates, all := store.WriterTime()
	b.ReportMetric(float64((updates-mark.updates).Microseconds())/float64(b.N), "writer-µs/op")
	b.ReportMetric(float64((all-mark.all).Microseconds())/float64(b.N), "commit-µs/op")
	b.ReportMetric(float64(store.PageWrites()-mark.pageWrites)/float64(b.N), "page-writes/op")
	if written := bytesWritten(); written >= 0 && mark.written >= 0 {
		b.ReportMetric(float64(written-mark.written)/1024/float64(b.N), "KiB-written/op")
	}
}

// bytesWritten is what the process has handed to write calls so far (wchar in /proc/self/io);
// -1 where there is no such file.
func bytesWritten() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// BenchmarkOfflineTurn is a whole turn on the offline backend: the context machinery above plus
// the offline team's answer, its prompt assembly, recall, entity merge and the reply's commit.
func BenchmarkOfflineTurn(b *testing.B) { benchmarkOfflineTurn(b, false) }

// BenchmarkOfflineTurnEncrypted is BenchmarkOfflineTurn on an encrypted database: what
// encryption costs a whole turn.
func BenchmarkOfflineTurnEncrypted(b *testing.B) { benchmarkOfflineTurn(b, true) }

func benchmarkOfflineTurn(b *testing.B, encrypted bool) {
	s := resumeBigShift(b, encrypted)
	inputs := []string{"how is your breathing now?", "switch to patient_42", "any pain anywhere?", "back to patient_100"}
	ctx := context.Background()
	discard := func(Event) {}
	durations := make([]time.Duration, 0, b.N)
	mark := markWriter(s.cfg.Store)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s.Turn(ctx, inputs[i%len(inputs)], discard)
		durations = append(durations, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, durations)
	reportWriter(b, s.cfg.Store, mark)
}

// BenchmarkReplyStream2000Tokens feeds a 2,000-token JSON answer to the reply streamer a token at
// a time, as Ollama streams it, and reports the whole answer's cost.
func BenchmarkReplyStream2000Tokens(b *testing.B) {
	words := make([]string, 2000)
	for i := range words {
		words[i] = fmt.Sprintf(`w%d \"q\" `, i%10)
	}
	chunks := append([]string{`{"reply": "`}, words...)
	chunks = append(chunks, `", "entities_to_update": {}}`)
	var got int
	for b.Loop() {
		got = 0
		r := replyStream{emit: func(s string) { got += len(s) }}
		for _, c := range chunks {
			r.add(c)
		}
		r.flush()
	}
	if got == 0 {
		b.Fatal("nothing streamed")
	}
}

// BenchmarkVetReply is what holding one reply to the record costs a call: collecting the numbers
// the Monitor's prompt gave (a shift's facts, window and memory) and checking a reply against
// them, the diagnosis and what is not yet told.
func BenchmarkVetReply(b *testing.B) {
	store, err := persist.Open(filepath.Join(b.TempDir(), "ward.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	s, err := Start(Config{Store: store, Backend: offline.New(), Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range []string{"/admit patient_1 anaphylaxis", "check vitals", "/wait 10m", "any allergies?", "/vitals"} {
		s.Turn(context.Background(), line, func(Event) {})
	}
	x := s.examine(newTurn("@Monitor how are the numbers?", func(Event) {}), settled{})
	monitor, _ := s.cfg.Team.Agent(agents.AgentMonitor)
	p := s.prompt(monitor, x, nil, "@Monitor how are the numbers?")
	reply := "Heart rate 118, SpO2 91 % on 15 L/min, BP 92/58, RR 28, temperature 37.1 degrees. NEWS2 is 9: escalate now."
	for b.Loop() {
		_ = s.vetter(agents.AgentMonitor, x, p).why(reply)
	}
}

// bedside is a realistic mix of what a trainee says to an asthma patient over a shift: questions,
// checks and treatments, so memory and the window fill as they would.
var bedside = []string{
	"hello, I'm the nurse looking after you. How are you feeling?",
	"checking vitals",
	"any allergies to medicines?",
	"what medications do you take?",
	"applying oxygen via non-rebreather at 15 L/min",
	"when did this start?",
	"give salbutamol 5 mg nebulised",
	"is the tightness any better?",
	"checking vitals again",
	"give prednisolone 40 mg PO",
	"have you been admitted with asthma before?",
	"try to slow your breathing down with me",
}

// TestBoundedGrowth plays 40 exchanges in 20 sim minutes through the real pipeline, once per
// window mode, and compares ward's own prompt estimates (what llm_call reports) with full
// history. Run with -v to see the table that BENCHMARKS.md records.
func TestBoundedGrowth(t *testing.T) {
	t.Parallel() // its own rigs, and ward's token estimates, not time: see sample_test.go
	modes := []struct {
		name   string
		window memory.Window
	}{
		{"block (default)", memory.DefaultWindow()},
		{"sliding", memory.SlidingWindow()},
		{"full history", memory.Window{Mode: memory.WindowSliding, Early: 1 << 20, Late: 1 << 20}},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-16s %6s %6s %6s %6s %8s\n", "mode", "ex 1", "ex 10", "ex 20", "ex 40", "40 / 10")
	for _, m := range modes {
		tokens, window := growth(t, m.window)
		ratio := float64(tokens[39]) / float64(tokens[9])
		fmt.Fprintf(&table, "%-16s %6d %6d %6d %6d %8.2f\n", m.name, tokens[0], tokens[9], tokens[19], tokens[39], ratio)
		switch {
		case m.window.Early < 1<<20 && ratio > 1.15:
			t.Errorf("%s: exchange 40 is %.2f × exchange 10, want at most 1.15", m.name, ratio)
		case m.window.Early < 1<<20 && tokens[39] >= 6400:
			t.Errorf("%s: %d tokens at exchange 40, want under the 6,400 BENCHMARKS.md compares with", m.name, tokens[39])
		case m.window.Early == 1<<20 && window[39] < window[19]*9/5:
			// Memory stops including everything at 10 sim minutes, so the total bends there; the
			// conversation itself must double from exchange 20 to 40.
			t.Errorf("full history's window should grow linearly: %d tokens at exchange 20, %d at 40", window[19], window[39])
		}
	}
	t.Log("\n" + table.String())
}

// growth returns the estimated prompt tokens of the Patient's call at each of 40 exchanges,
// thirty sim seconds apart, in all and for the window alone.
func growth(t *testing.T, w memory.Window) (tokens, window []int) {
	t.Helper()
	r := newRig(t)
	r.cfg.Window = w
	r.restart()
	r.turn("/admit patient_1 asthma-exacerbation")
	for i := range 40 {
		in := bedside[i%len(bedside)]
		r.turn(in)
		calls := r.s.turns[len(r.s.turns)-1].Calls
		if len(calls) == 0 {
			t.Fatalf("exchange %d (%q) made no call", i+1, in)
		}
		total := 0
		for _, n := range calls[0].Trace.Sections {
			total += n
		}
		tokens = append(tokens, total)
		window = append(window, calls[0].Trace.Sections["window"])
		r.turn("/wait 30s")
	}
	return tokens, window
}

// TestWriteShiftFixture writes a shift of WARD_FIXTURE_PATIENTS histories (default 100) of
// WARD_FIXTURE_MESSAGES stored messages each (default 1,000) to the file WARD_FIXTURE_DB. As many
// of the patients as the built-in library has cases to give are admitted through the session
// (36): a shift gives no two patients the same case, and the real binary reads the file with
// the built-in library alone. It is how .ci/first-frame.sh builds the database it starts the
// real binary on; without WARD_FIXTURE_DB it is skipped.
func TestWriteShiftFixture(t *testing.T) {
	path := os.Getenv("WARD_FIXTURE_DB")
	if path == "" {
		t.Skip("set WARD_FIXTURE_DB to write the fixture")
	}
	patients, messages := envInt(t, "WARD_FIXTURE_PATIENTS", 100), envInt(t, "WARD_FIXTURE_MESSAGES", 1000)
	store, err := persist.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, err := Start(Config{Store: store, Backend: offline.New(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// patient_1, the one spoken to, is the same case however many share the ward (a draw from
	// the library would change with its size, and with it what a turn costs); the rest are drawn.
	s.Turn(context.Background(), "/admit patient_1 asthma-exacerbation", func(Event) {})
	for p := 2; p <= patients; p++ {
		s.Turn(context.Background(), fmt.Sprintf("/admit patient_%d", p), func(Event) {})
	}
	s.Turn(context.Background(), "/wait 10m", func(Event) {})
	at := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	for p := 1; p <= patients; p++ {
		msgs := make([]memory.Message, messages)
		for i := range msgs {
			msgs[i] = memory.Message{Role: "user", Content: fmt.Sprintf("checking airway and breathing (%d)", i), At: at.Add(time.Duration(i) * time.Second)}
			if i%2 == 1 {
				msgs[i].Role, msgs[i].Agent, msgs[i].Content = "assistant", "Patient", fmt.Sprintf("It's *hard* to breathe (%d).", i)
			}
		}
		if err := store.Update(s.ID(), func(tx *persist.Tx) error { return tx.Append(fmt.Sprintf("patient_%d", p), msgs...) }); err != nil {
			t.Fatal(err)
		}
	}
}

func envInt(t testing.TB, name string, fallback int) int {
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil || n < 0 {
		t.Fatalf("%s=%q is not a count", name, v)
	}
	return n
}

// BenchmarkOfflineTurnPatients is a shift's turn as a class plays it, with 1 and with 100
// admitted patients: the trainee speaks to one patient three times, then lets a minute pass
// (/wait 1m), on the offline backend with durable commits. A turn's cost should not grow with
// the patients the trainee is not talking to. p50-ms is the median of all four turns;
// line-p50-ms of the three lines alone. A minute's wait steps and stores every patient on
// monitors, so it is the cheapest turn on a ward of one and the dearest on a ward of 100: in
// the mix it moves the median from the lines' lower third to their upper, and the mix's ratio
// measures where the wait falls as much as what a line costs.
func BenchmarkOfflineTurnPatients(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("patients=%d", n), func(b *testing.B) {
			s := admittedShift(b, n)
			inputs := []string{"how is your breathing now?", "checking vitals", "any pain anywhere?", "/wait 1m"}
			ctx := context.Background()
			discard := func(Event) {}
			durations, lines := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
			mark := markWriter(s.cfg.Store)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				input := inputs[i%len(inputs)]
				t0 := time.Now()
				s.Turn(ctx, input, discard)
				took := time.Since(t0)
				durations = append(durations, took)
				if !strings.HasPrefix(input, "/") {
					lines = append(lines, took)
				}
			}
			b.StopTimer()
			reportPercentiles(b, durations)
			b.ReportMetric(p50ms(lines), "line-p50-ms")
			reportWriter(b, s.cfg.Store, mark)
		})
	}
}

// BenchmarkLineOnAFullWard asks the row directly: a line to one patient on a ward of
// 100 against the same line on a ward of one. The two shifts play OfflineTurnPatients' mix turn
// about in one run (which goes first alternating), so the machine's drift, which moved whole
// runs of OfflineTurnPatients by a quarter, falls on both alike; only the lines are timed. Each
// turn runs under a profiler label (who=one-line, full-line, one-wait or full-wait), so one
// -cpuprofile shows either ward's lines or waits apart: go tool pprof -tagfocus who=full-line.
// Beside each ward's line median it reports where a line's extra time on the full ward can lie:
// the median of its storage (the turn's own Timing.StorageMS: encoding, the commit and its
// fsyncs) and the KiB it wrote. WARD_FULL_WARD sets the full ward's size (default 100).
func BenchmarkLineOnAFullWard(b *testing.B) {
	shifts := []*Session{admittedShift(b, 1), admittedShift(b, envInt(b, "WARD_FULL_WARD", 100))}
	inputs := []string{"how is your breathing now?", "checking vitals", "any pain anywhere?", "/wait 1m"}
	var lines, storage [2][]time.Duration
	var written [2]int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		input := inputs[i%len(inputs)]
		kind := "line"
		if strings.HasPrefix(input, "/") {
			kind = "wait"
		}
		for turn := range 2 {
			k := (i + turn) % 2
			labels := pprof.Labels("who", []string{"one", "full"}[k]+"-"+kind)
			var timing Timing
			keepTiming := func(e Event) {
				if end, ok := e.(TurnEndEvent); ok {
					timing = end.Timing
				}
			}
			w0, t0 := bytesWritten(), time.Now()
			pprof.Do(context.Background(), labels, func(ctx context.Context) { shifts[k].Turn(ctx, input, keepTiming) })
			if took := time.Since(t0); kind == "line" {
				lines[k] = append(lines[k], took)
				storage[k] = append(storage[k], time.Duration(timing.StorageMS*float64(time.Millisecond)))
				written[k] += bytesWritten() - w0
			}
		}
	}
	b.StopTimer()
	for k, who := range []string{"one", "full"} {
		b.ReportMetric(p50ms(lines[k]), who+"-line-p50-ms")
		b.ReportMetric(p50ms(storage[k]), who+"-storage-p50-ms")
		b.ReportMetric(float64(written[k])/1024/float64(len(lines[k])), who+"-KiB/line")
	}
	b.ReportMetric(p50ms(lines[1])/p50ms(lines[0]), "full÷one")
}

// admittedShift is a new shift on a real store with patients admitted through the session,
// each on the engine, the first one active.
func admittedShift(b testing.TB, patients int) *Session {
	b.Helper()
	store, err := persist.Open(filepath.Join(b.TempDir(), "ward.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	lib, err := scenariotest.FullWard()
	if err != nil {
		b.Fatal(err)
	}
	s, err := Start(Config{Store: store, Backend: offline.New(), Analyzer: analyzer.NewAnalyzer(nil), Scenarios: lib, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	// patient_1, the one spoken to, is the same case however many share the ward (a draw from
	// the library would change with its size, and with it what a turn costs); the rest are drawn.
	s.Turn(context.Background(), "/admit patient_1 asthma-exacerbation", func(Event) {})
	for p := 2; p <= patients; p++ {
		s.Turn(context.Background(), fmt.Sprintf("/admit patient_%d", p), func(Event) {})
	}
	if got := len(s.reg.roster); got != patients {
		b.Fatalf("%d patients admitted, want %d", got, patients)
	}
	s.Turn(context.Background(), "switch to patient_1", func(Event) {})
	if s.active != "patient_1" {
		b.Fatalf("active patient is %q, want patient_1", s.active)
	}
	return s
}

// TestTurnAllocatesAsOnOnePatient: a line to one patient allocates about the same whether the
// shift has 1 patient or 100 (within 10 %): what a turn touches is the patient spoken to.
func TestTurnAllocatesAsOnOnePatient(t *testing.T) {
	if testing.Short() {
		t.Skip("admits 100 patients")
	}
	lines := []string{"how is your breathing now?", "checking vitals", "any pain anywhere?"}
	allocs := func(patients int) float64 {
		s := admittedShift(t, patients)
		i := 0
		return testing.AllocsPerRun(30, func() {
			s.Turn(context.Background(), lines[i%len(lines)], func(Event) {})
			i++
		})
	}
	one, hundred := allocs(1), allocs(100)
	t.Logf("allocations a turn: %.0f with 1 patient, %.0f with 100", one, hundred)
	if hundred > 1.1*one {
		t.Errorf("a turn with 100 patients allocates %.0f, more than 1.1 × %.0f with one", hundred, one)
	}
}
