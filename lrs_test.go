package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lrsClass is a database with two patients sent on, which export 15 xAPI statements, and the
// ids of those statements.
func lrsClass(t *testing.T) (db string, ids []string) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "ward.db")
	script := "/admit patient_1 asthma-exacerbation\napplying oxygen 15 L NRB\n/diagnosis asthma\n/wait 2m\n/dispo HDU\n" +
		"/admit patient_2 sepsis-urosepsis\ncheck vitals\n/dispo ward\n"
	if out, err := ward(t, script, "run", "--db", db, "--backend", "offline", "--new", "--seed", "4", "--trainee", "alice"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := ward(t, "", "report", "--db", db, "--format", "xapi")
	if err != nil {
		t.Fatal(err)
	}
	var statements []struct{ ID string }
	if err := json.Unmarshal([]byte(out), &statements); err != nil {
		t.Fatal(err)
	}
	for _, s := range statements {
		ids = append(ids, s.ID)
	}
	if len(ids) < 10 {
		t.Fatalf("the class exports %d statements, too few to test batches and retries", len(ids))
	}
	return db, ids
}

// fakeLRS is a learning record store in memory: it keeps each statement it takes, counts how
// often each id arrived, and answers what status says (200 unless it says otherwise).
type fakeLRS struct {
	mu       sync.Mutex
	received map[string]int
	status   func(ids []string) int
	auth     []string
}

func newFakeLRS(t *testing.T, status func(ids []string) int) (*fakeLRS, *httptest.Server) {
	f := &fakeLRS{received: map[string]int{}, status: status}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/xapi/statements" || r.Header.Get("X-Experience-API-Version") != "1.0.3" {
			http.Error(w, "not an xAPI 1.0.3 POST to /statements", http.StatusBadRequest)
			return
		}
		var batch []struct{ ID string }
		if err := json.NewDecoder(r.Body).Decode(&batch); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ids := make([]string, len(batch))
		for i, s := range batch {
			ids[i] = s.ID
		}
		code := http.StatusOK
		if f.status != nil {
			code = f.status(ids)
		}
		f.mu.Lock()
		user, pass, _ := r.BasicAuth()
		f.auth = append(f.auth, user+":"+pass)
		if code == http.StatusOK {
			for _, id := range ids {
				f.received[id]++
			}
		}
		f.mu.Unlock()
		w.WriteHeader(code)
		if code == http.StatusOK {
			_ = json.NewEncoder(w).Encode(ids)
		}
	}))
	t.Cleanup(srv.Close)
	return f, srv
}

// exactlyOnce fails unless the store received each id once and nothing else.
func (f *fakeLRS) exactlyOnce(t *testing.T, ids []string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		if f.received[id] != 1 {
			t.Errorf("statement %s arrived %d times", id, f.received[id])
		}
	}
	if len(f.received) != len(ids) {
		t.Errorf("the store holds %d statements, the class has %d", len(f.received), len(ids))
	}
}

// A store that is down (500) the first run keeps every statement in the outbox; the second
// run, with the store up, says they waited and posts each exactly once; a third sends nothing.
func TestReportLRSOutboxSurvivesARestartWithTheStoreDown(t *testing.T) {
	db, ids := lrsClass(t)
	t.Setenv("WARD_LRS_USER", "ward")
	t.Setenv("WARD_LRS_PASSWORD", "s3cret")
	_, down := newFakeLRS(t, func([]string) int { return http.StatusInternalServerError })
	out, err := ward(t, "", "report", "--db", db, "--lrs", down.URL+"/xapi/", "--lrs-timeout", "600ms")
	if err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "wait in the outbox") {
		t.Fatalf("a store that fails: %v\n%s", err, out)
	}
	if !strings.Contains(out, "0 taken") {
		t.Errorf("first run: %s", out)
	}
	up, srv := newFakeLRS(t, nil)
	out, err = ward(t, "", "report", "--db", db, "--lrs", srv.URL+"/xapi")
	if err != nil || !strings.Contains(out, "statement(s) waited in the outbox from an earlier run") {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	up.exactlyOnce(t, ids)
	if out, err = ward(t, "", "report", "--db", db, "--lrs", srv.URL+"/xapi"); err != nil || !strings.Contains(out, "0 new statement(s) put in the outbox; 0 taken") {
		t.Errorf("third run: %v\n%s", err, out)
	}
	up.exactlyOnce(t, ids)
	for _, a := range up.auth {
		if a != "ward:s3cret" {
			t.Fatalf("basic auth %q, want the environment's", a)
		}
	}
}

// 409 says a statement of that id is already there: the batch is posted again one by one, and
// every statement counts as taken, none posted twice into the store.
func TestReportLRSTakesAConflictAsAlreadyThere(t *testing.T) {
	db, ids := lrsClass(t)
	already := ids[3]
	var f *fakeLRS
	f, srv := newFakeLRS(t, func(batch []string) int {
		for _, id := range batch {
			if id == already {
				return http.StatusConflict
			}
		}
		return http.StatusOK
	})
	out, err := ward(t, "", "report", "--db", db, "--lrs", srv.URL+"/xapi")
	if err != nil || !strings.Contains(out, "taken by") || !strings.Contains(out, "; 0 waiting") {
		t.Fatalf("%v\n%s", err, out)
	}
	f.mu.Lock()
	f.received[already]++ // the store had it before this run
	f.mu.Unlock()
	f.exactlyOnce(t, ids)
}

// A store that never answers is given up on when --lrs-timeout is up, and the statements wait.
func TestReportLRSGivesUpOnAStoreThatTimesOut(t *testing.T) {
	db, ids := lrsClass(t)
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer hung.Close()
	start := time.Now()
	out, err := ward(t, "", "report", "--db", db, "--lrs", hung.URL+"/xapi", "--lrs-timeout", "500ms")
	if err == nil || !strings.Contains(err.Error(), "did not take the statements before the time was up") {
		t.Fatalf("a store that hangs: %v\n%s", err, out)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the run took %v with --lrs-timeout 500ms", took)
	}
	f, srv := newFakeLRS(t, nil)
	if out, err := ward(t, "", "report", "--db", db, "--lrs", srv.URL+"/xapi"); err != nil || !strings.Contains(out, "waited") {
		t.Fatalf("the run after: %v\n%s", err, out)
	}
	f.exactlyOnce(t, ids)
}

// Errors that retrying cannot mend are said at once, in one line: a store that refuses the
// account, one that is not there, and an endpoint that is not a URL.
func TestReportLRSErrorsAreClear(t *testing.T) {
	db, _ := lrsClass(t)
	_, refusing := newFakeLRS(t, func([]string) int { return http.StatusUnauthorized })
	_, err := ward(t, "", "report", "--db", db, "--lrs", refusing.URL+"/xapi")
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "WARD_LRS_USER") {
		t.Errorf("401: %v", err)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	_, err = ward(t, "", "report", "--db", db, "--lrs", gone.URL+"/xapi", "--lrs-timeout", "300ms")
	if err == nil || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "\n") {
		t.Errorf("unreachable: %v", err)
	}
	for _, bad := range []string{"lrs.example.org/xapi", "ftp://lrs.example.org/", "https://lrs.example.org/xapi?x=1"} {
		var usage usageError
		if _, err := ward(t, "", "report", "--db", db, "--lrs", bad); !errors.As(err, &usage) {
			t.Errorf("--lrs %s: %v, want a usage error", bad, err)
		}
	}
}

// In an encrypted database the outbox keeps its statements sealed: the file shows no answer in
// the clear while the store is down, and the instructor's next run posts them all.
func TestReportLRSKeepsAnEncryptedOutboxSealed(t *testing.T) {
	db := filepath.Join(t.TempDir(), "class.db")
	passphrases(t, "alice on the night shift", "the night sister holds the keys")
	script := "/admit patient_1 asthma-exacerbation\n/diagnosis acute severe asthma\n/dispo HDU\nHer peak flow was a third of her best\n"
	if out, err := ward(t, script, "run", "--db", db, "--encrypt", "--trainee", "alice", "--backend", "offline"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, down := newFakeLRS(t, func([]string) int { return http.StatusServiceUnavailable })
	if _, err := ward(t, "", "report", "--db", db, "--lrs", down.URL+"/xapi", "--lrs-timeout", "300ms"); err == nil {
		t.Fatal("a store that is down took the statements")
	}
	if data, _ := os.ReadFile(db); bytes.Contains(data, []byte("peak flow")) || bytes.Contains(data, []byte("ward.invalid/")) {
		t.Error("the encrypted file holds a waiting statement in the clear")
	}
	f, up := newFakeLRS(t, nil)
	out, err := ward(t, "", "report", "--db", db, "--lrs", up.URL+"/xapi")
	if err != nil || !strings.Contains(out, "waited") || !strings.Contains(out, "; 0 waiting") {
		t.Fatalf("%v\n%s", err, out)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.received) < 3 {
		t.Errorf("the store took %d statements", len(f.received))
	}
}
