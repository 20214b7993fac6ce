package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/sessiontest"
)

// xapiOf plays script as trainee alice and exports the class with args.
func xapiOf(t *testing.T, script string, args ...string) []records.Statement {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ward.db")
	if out, err := ward(t, script, "run", "--db", db, "--backend", "offline", "--new", "--seed", "4", "--trainee", "alice"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := ward(t, "", append([]string{"report", "--db", db, "--format", "xapi"}, args...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var statements []records.Statement
	if err := json.Unmarshal([]byte(out), &statements); err != nil {
		t.Fatal(err)
	}
	return statements
}

// Each reflective answer is its own statement: the answer, its key points named and missed,
// scored by the share named; the actor's account is on the --xapi-homepage.
func TestXAPIReflectionsNameTheirKeyPoints(t *testing.T) {
	script := "/admit patient_1 asthma-exacerbation\n/diagnosis acute severe asthma\n/dispo HDU\n" +
		"She could not complete sentences and her respiratory rate was over 25; a silent chest would make it life-threatening\n" +
		"oxygen and nebulised salbutamol first\na silent chest or exhaustion\n"
	statements := xapiOf(t, script, "--xapi-base", "https://lrs.example.org/ward/", "--xapi-homepage", "https://sso.example.org")
	base := "https://lrs.example.org/ward/"
	var answers []records.Statement
	for _, s := range statements {
		if s.Actor.Account != (records.Account{HomePage: "https://sso.example.org/", Name: "alice"}) {
			t.Fatalf("actor %+v, want alice on the home page given", s.Actor)
		}
		if strings.Contains(s.Object.ID, "/reflections/") {
			answers = append(answers, s)
		}
	}
	if len(answers) != 3 {
		t.Fatalf("%d reflection statements, want the 3 answers", len(answers))
	}
	first := answers[0]
	named, _ := first.Result.Extensions[base+"extensions/key-points-named"].([]any)
	missed, _ := first.Result.Extensions[base+"extensions/key-points-missed"].([]any)
	if first.Verb.ID != "http://adlnet.gov/expapi/verbs/answered" || !strings.HasPrefix(first.Result.Response, "She could not complete sentences") ||
		!strings.HasSuffix(first.Object.ID, "/reflections/1") || len(named) == 0 || first.Result.Score == nil ||
		first.Result.Score.Raw != len(named) || first.Result.Score.Max != len(named)+len(missed) {
		t.Errorf("the first answer's statement: %+v %+v", first.Object, first.Result)
	}
}

// A cardiac arrest is a statement of its own, its measures in extensions: the compression
// fraction, the longest pause, the time to the first shock, each drug's timing (none here: the
// second shock brings the heart back).
func TestXAPIArrestMetrics(t *testing.T) {
	script := strings.Join([]string{"/admit patient_1 arrest-vf-ward", "attach the monitor", "/wait 35s",
		"crash call, start CPR, pads on, charge to 150 J", "/wait 20s", "stop compressions, rhythm check",
		"VF, shock 150 J, resume CPR", "/wait 2m", "stop compressions, rhythm check", "shock 200 J, resume CPR",
		"/wait 2m", "pulse check", "/dispo ICU"}, "\n") + "\n"
	ext := records.DefaultXAPIBase + "extensions/arrest-"
	for _, s := range xapiOf(t, script) {
		if !strings.HasSuffix(s.Object.ID, "/arrest") {
			continue
		}
		fraction, _ := s.Result.Extensions[ext+"compression-fraction"].(float64)
		shock, _ := s.Result.Extensions[ext+"seconds-to-first-shock"].(float64)
		_, drugs := s.Result.Extensions[ext+"drugs"].([]any)
		if fraction <= 0 || fraction > 1 || shock != 25 || !drugs || s.Result.Response == "" || s.Result.Extensions[ext+"longest-pause-seconds"] == nil {
			t.Errorf("the arrest's measures: %v", s.Result.Extensions)
		}
		return
	}
	t.Fatal("no statement for the arrest")
}

// A shift that names no trainee is refused in one line rather than given a made-up actor.
func TestXAPIRefusesAShiftWithNoTrainee(t *testing.T) {
	r := sessiontest.Seeded(t) // signed in as no one: its shift names no trainee
	for _, line := range []string{"/admit patient_1 asthma-exacerbation", "applying oxygen 15 L NRB", "/dispo HDU"} {
		r.Turn(line)
	}
	db := r.Store.Path()
	r.Store.Close()
	_, err := ward(t, "", "report", "--db", db, "--format", "xapi")
	if err == nil || !strings.Contains(err.Error(), "names no trainee") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a shift with no trainee: %v", err)
	}
	if info, ok, _ := mustOpen(t, db).LatestSession(); !ok || info.Trainee != "" {
		t.Fatalf("the rig's shift names %q", info.Trainee)
	}
}

// A shift played without --trainee is kept under the login's name ("root"), which names no one
// to a learning record store: the xAPI export refuses it in one line that says what to pass,
// while the class report's other formats still read it. Resumed with --trainee, it is named.
func TestXAPIRefusesAShiftPlayedUnderTheLogin(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	script := "/admit patient_1 asthma-exacerbation\napplying oxygen 15 L NRB\n/dispo HDU\n"
	if out, err := ward(t, script, "run", "--db", db, "--backend", "offline", "--new", "--seed", "4"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	login := persist.LoginName()
	out, err := ward(t, "", "report", "--db", db, "--format", "xapi")
	if err == nil || out != "" || !strings.Contains(err.Error(), "--trainee NAME") ||
		!strings.Contains(err.Error(), `"`+login+`"`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a shift played under the login %q: %v\n%s", login, err, out)
	}
	for _, format := range []string{"md", "csv", "json"} {
		if out, err := ward(t, "", "report", "--db", db, "--format", format); err != nil || !strings.Contains(out, login) {
			t.Errorf("--format %s of a shift with no trainee named: %v\n%s", format, err, out)
		}
	}
	if out, err := ward(t, "/wait 1m\n", "run", "--db", db, "--backend", "offline", "--trainee", login); err != nil {
		t.Fatalf("resumed as %s: %v\n%s", login, err, out)
	}
	out, err = ward(t, "", "report", "--db", db, "--format", "xapi")
	var statements []records.Statement
	if err != nil || json.Unmarshal([]byte(out), &statements) != nil || len(statements) == 0 || statements[0].Actor.Name != login {
		t.Fatalf("the shift resumed with --trainee %s: %v\n%s", login, err, out)
	}
}

func mustOpen(t *testing.T, db string) *persist.Store {
	t.Helper()
	st, err := persist.OpenSnapshot(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
