package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/ui/lab"
	gossh "golang.org/x/crypto/ssh"
)

// keyFile writes a new public key to a file in authorized_keys form, with comment.
func keyFile(t *testing.T, dir, name, comment string) (string, gossh.Signer) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey()))) + comment + "\n"
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, signer
}

// ward enrol writes the enrolments beside the database, says what it enrolled, and checks its
// arguments.
func TestEnrolWritesTheKeysBesideTheDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "class.db")
	alice, _ := keyFile(t, dir, "alice.pub", "")
	jones, _ := keyFile(t, dir, "jones.pub", " dr jones's laptop")
	out, err := ward(t, "", "enrol", "alice", "--key", alice, "--db", db)
	if err != nil || !strings.HasPrefix(out, "enrolled trainee alice (SHA256:") {
		t.Fatalf("enrol alice: %v\n%s", err, out)
	}
	if out, err := ward(t, "", "enrol", "jones", "--key", jones, "--instructor", "--db", db); err != nil || !strings.HasPrefix(out, "enrolled instructor jones") {
		t.Fatalf("enrol the instructor: %v\n%s", err, out)
	}
	b, _ := keyFile(t, dir, "b.pub", " bob")
	c, _ := keyFile(t, dir, "c.pub", " carol")
	class := filepath.Join(dir, "authorized_keys")
	bs, _ := os.ReadFile(b)
	cs, _ := os.ReadFile(c)
	if err := os.WriteFile(class, append(bs, cs...), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := ward(t, "", "enrol", "--authorized-keys", class, "--db", db); err != nil || !strings.Contains(out, "enrolled trainee bob") || !strings.Contains(out, "enrolled trainee carol") {
		t.Fatalf("enrol an authorized_keys file: %v\n%s", err, out)
	}
	all, err := lab.ReadEnrolments(lab.KeysPath(db))
	if err != nil || len(all) != 4 || all.Count() != 3 {
		t.Errorf("the enrolments hold %+v (%v)", all, err)
	}
	for _, args := range [][]string{
		{"enrol", "alice"},
		{"enrol", "--key", alice},
		{"enrol", "dave", "--authorized-keys", class},
		{"enrol", "a", "b", "--key", alice},
	} {
		if _, err := ward(t, "", append(args, "--db", db)...); exitCode(err) != 2 {
			t.Errorf("ward %q: %v; want a usage error", args, err)
		}
	}
	if _, err := ward(t, "", "enrol", "dave", "--key", class+"-missing", "--db", db); err == nil {
		t.Error("a missing key file was enrolled")
	}
	if _, err := ward(t, "", "enrol", "dave", "--key", db+".keys", "--db", db); err == nil || !strings.Contains(err.Error(), "not a public key") {
		t.Errorf("a file that is not a key: %v", err)
	}
}

// syncBuffer is a stdout the server writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// ward serve says where it listens, lets an enrolled key in, and stops on SIGTERM.
func TestServeListensAndStopsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "class.db")
	alice, signer := keyFile(t, dir, "alice.pub", "")
	if _, err := ward(t, "", "enrol", "alice", "--key", alice, "--db", db); err != nil {
		t.Fatal(err)
	}
	addr, stop := serveInBackground(t, "--db", db)
	conn, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if info, err := os.Stat(db + ".hostkey"); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the host key beside the database: %v", err)
	}
	if err := stop(); err != nil {
		t.Errorf("ward serve on SIGTERM: %v", err)
	}
}

// WARD_CPUPROFILE names a file ward serve writes a CPU profile to as it stops (a gzipped
// protobuf, as go tool pprof reads), and a file that is there already is refused, not written over.
func TestServeWritesACPUProfile(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "serve.prof")
	t.Setenv(cpuProfileEnv, profile)
	_, stop := serveInBackground(t, "--db", filepath.Join(dir, "class.db"))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(profile)
	if err != nil || len(written) < 2 || written[0] != 0x1f || written[1] != 0x8b {
		t.Fatalf("the profile: %v, %d bytes, not gzip", err, len(written))
	}
	_, err = ward(t, "", "serve", "--db", filepath.Join(dir, "class.db"), "--listen", "127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), cpuProfileEnv) {
		t.Fatalf("ward serve with the profile's file there already: %v, want a refusal naming %s", err, cpuProfileEnv)
	}
	if again, _ := os.ReadFile(profile); string(again) != string(written) {
		t.Error("the profile there already was written over")
	}
}

// serveInBackground runs ward serve on loopback with args until stop sends SIGTERM, and
// returns where it listens.
func serveInBackground(t *testing.T, args ...string) (addr string, stop func() error) {
	t.Helper()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--backend", "offline", "--idle", "0"}, args...)
		done <- run(args, strings.NewReader(""), &stdout, &stderr)
	}()
	listening := regexp.MustCompile(`^ward: serving .*class\.db on (127\.0\.0\.1:\d+) \(\d+ trainees enrolled\)\n$`)
	deadline := time.Now().Add(20 * time.Second)
	for !listening.MatchString(stdout.String()) {
		select {
		case err := <-done:
			t.Fatalf("ward serve ended: %v %q", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("ward serve never said it listens: %q %q", stdout.String(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return listening.FindStringSubmatch(stdout.String())[1], func() error {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("ward serve did not stop on SIGTERM")
		}
		return nil
	}
}

// ward serve --encrypt makes a new class database encrypted under the instructor's passphrase,
// and refuses one that holds shifts.
func TestServeEncryptsANewDatabase(t *testing.T) {
	t.Setenv(persist.EnvInstructorPassphrase, "the instructor's long passphrase 42")
	db := filepath.Join(t.TempDir(), "class.db")
	_, stop := serveInBackground(t, "--db", db, "--encrypt")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	store, err := persist.OpenSnapshot(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if on, err := store.Encrypted(); err != nil || !on {
		t.Errorf("ward serve --encrypt left the database plain (%v)", err)
	}
	played := shiftDB(t)
	if _, err := ward(t, "", "serve", "--db", played, "--encrypt", "--backend", "offline"); err == nil || !strings.Contains(err.Error(), "holds shifts already") {
		t.Errorf("--encrypt on a database with shifts: %v", err)
	}
}

// ward serve checks its flags before it opens anything.
func TestServeChecksItsFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "class.db")
	for _, args := range [][]string{{"--slots", "0"}, {"--theme", "sepia"}, {"--listen", "nowhere"}} {
		_, err := ward(t, "", append([]string{"serve", "--db", db, "--backend", "offline"}, args...)...)
		if err == nil {
			t.Errorf("ward serve %q started", args)
		}
	}
	if _, err := ward(t, "", "serve", "--db", db, "--slots", "0"); exitCode(err) != 2 {
		t.Errorf("--slots 0: %v; want a usage error", err)
	}
}

// ward team forms a team of enrolled trainees beside the database, says whom, and checks its
// arguments: members, their roles and enrolment, the case.
func TestTeamFormsATeamBesideTheDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "class.db")
	for _, name := range []string{"alice", "bob"} {
		key, _ := keyFile(t, dir, name+".pub", "")
		if _, err := ward(t, "", "enrol", name, "--key", key, "--db", db); err != nil {
			t.Fatal(err)
		}
	}
	out, err := ward(t, "", "team", "red", "--member", "alice:leader", "--member", "bob:drugs", "--scenario", "arrest-vf-ward", "--db", db)
	if err != nil || out != "formed team red: alice (leader), bob (drugs)\n" {
		t.Fatalf("ward team: %v %q", err, out)
	}
	teams, err := lab.ReadTeams(lab.TeamsPath(db))
	if err != nil || len(teams) != 1 || teams[0].Scenario != "arrest-vf-ward" || len(teams[0].Members) != 2 {
		t.Errorf("the teams beside the database: %+v %v", teams, err)
	}
	// A role the case names is one its team may have.
	out, err = ward(t, "", "team", "blue", "--member", "alice:leader", "--member", "bob:timekeeper", "--scenario", "paediatric-arrest", "--db", db)
	if err != nil || out != "formed team blue: alice (leader), bob (timekeeper)\n" {
		t.Fatalf("ward team with the case's timekeeper: %v %q", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"team", "red", "--db", db}, "usage: ward team NAME --member"},
		{[]string{"team", "red", "--member", "alice", "--db", db}, "is not NAME:ROLE"},
		{[]string{"team", "red", "--member", "alice:pilot", "--db", db}, "none of leader"},
		{[]string{"team", "red", "--member", "alice:timekeeper", "--scenario", "arrest-vf-ward", "--db", db}, "none of leader, airway, circulation, drugs, recorder"},
		{[]string{"team", "red", "--member", "carol:leader", "--db", db}, "carol is not an enrolled trainee"},
		{[]string{"team", "red", "--member", "alice:leader", "--scenario", "no-such-case", "--db", db}, "no such scenario"},
		{[]string{"team", "--member", "alice:leader", "--db", db}, "usage: ward team NAME"},
	} {
		if _, err := ward(t, "", c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ward %q: %v, want %q", c.args, err, c.want)
		}
	}
}
