package records_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/session/sessiontest"
)

// closeAsthma plays one asthma patient to the end: the working diagnosis, then the disposition
// that closes the case. sedate adds a critical error (a benzodiazepine for a tiring asthmatic).
func closeAsthma(r *sessiontest.Rig, sedate bool) {
	r.T.Helper()
	playAsthma(r, false)
	if sedate {
		r.Turn("site a cannula")
		r.Turn("give midazolam 2 mg IV")
	}
	r.Turn("/diagnosis acute severe asthma")
	r.Turn("/dispo hdu")
}

// classStore is a store with alice's and bob's shifts, each with a closed asthma case (bob's
// with a critical error), and alice's second, still open, shift. It is signed in as the
// instructor.
func classStore(t *testing.T) (*sessiontest.Rig, *scenario.Library) {
	t.Helper()
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := sessiontest.Trainee(t, "alice")
	closeAsthma(r, false)
	r.NewShift()
	r.Turn("/admit patient_1 asthma-exacerbation")
	r.Turn("/vitals")
	signIn(t, r, persist.Person{Trainee: "bob"})
	r.NewShift()
	closeAsthma(r, true)
	signIn(t, r, persist.Person{Instructor: true})
	return r, lib
}

func signIn(t *testing.T, r *sessiontest.Rig, p persist.Person) {
	t.Helper()
	if err := r.Store.SignIn(p, nil); err != nil {
		t.Fatal(err)
	}
}

// exportJSON is the export of the store as the CLI writes it, decoded as any JSON reader would.
func exportJSON(t *testing.T, r *sessiontest.Rig, lib *scenario.Library) ([]byte, []map[string]any) {
	t.Helper()
	statements, err := records.ReadXAPI(r.Store, lib, records.XAPINames{Base: records.DefaultXAPIBase})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(statements)
	if err != nil {
		t.Fatal(err)
	}
	var decoded []map[string]any
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	return data, decoded
}

func TestXAPIStatementsOfAClass(t *testing.T) {
	r, lib := classStore(t)
	data, statements := exportJSON(t, r, lib)
	ids := map[string]bool{}
	for i, s := range statements {
		for _, problem := range xapiProblems(s) {
			t.Errorf("statement %d: %s\n%s", i, problem, pretty(s))
		}
		id, _ := s["id"].(string)
		if ids[id] {
			t.Errorf("statement %d repeats id %s", i, id)
		}
		ids[id] = true
	}

	report, err := records.ReadClassReport(r.Store, lib)
	if err != nil {
		t.Fatal(err)
	}
	caseIRI := records.DefaultXAPIBase + "scenarios/asthma-exacerbation"
	for _, trainee := range report.Trainees {
		for si, shift := range trainee.Shifts {
			p := shift.Patients[0]
			closed := p.Disposition != ""
			got := ofCase(statements, trainee.Trainee, si)
			completed, events := split(got, caseIRI)
			switch {
			case closed && len(completed) != 1:
				t.Errorf("%s's shift %d: %d statements of the case completed, want 1", trainee.Trainee, si+1, len(completed))
			case !closed && len(completed) != 0:
				t.Errorf("%s's open shift: %d statements of the case completed, want none", trainee.Trainee, si+1)
			}
			// One statement per scored event: every critical action (none is moot here), every
			// critical error, the diagnosis and the disposition; an open case's only once done.
			want := p.Critical + len(p.CriticalErrors) + 2
			if !closed {
				want = len(p.ToCritical)
			}
			if len(events) != want {
				t.Errorf("%s's shift %d: %d scored events, want %d:\n%s", trainee.Trainee, si+1, len(events), want, verbsOf(events))
			}
			if passed := countVerb(events, "passed", "/critical-actions/"); closed && passed != p.Met {
				t.Errorf("%s's shift %d: %d critical actions passed, the review met %d", trainee.Trainee, si+1, passed, p.Met)
			}
			if failed := countVerb(events, "failed", "/critical-errors/"); failed != len(p.CriticalErrors) {
				t.Errorf("%s's shift %d: %d critical errors failed, the review has %d", trainee.Trainee, si+1, failed, len(p.CriticalErrors))
			}
			if closed {
				score := completed[0]["result"].(map[string]any)["score"].(map[string]any)
				if score["raw"] != float64(p.Score) || score["max"] != float64(p.Max) {
					t.Errorf("%s's case scored %v of %v, the review %d of %d", trainee.Trainee, score["raw"], score["max"], p.Score, p.Max)
				}
			}
		}
	}
	if len(report.Trainees) != 2 || len(report.Trainees[1].Shifts[0].Patients[0].CriticalErrors) == 0 {
		t.Fatalf("the class is not alice's two shifts and bob's one with a critical error: %+v", report.Trainees)
	}

	// A second export of the same database is the same, byte for byte: an LRS ignores it.
	again, _ := exportJSON(t, r, lib)
	if !bytes.Equal(data, again) {
		t.Error("a second export differs from the first")
	}
}

// A statement, once exported, never changes: playing on and closing alice's open case adds
// statements and changes none of the first export's, so an LRS that keeps the first of each id
// keeps the right one.
func TestXAPIStatementsOnceExportedNeverChange(t *testing.T) {
	r, lib := classStore(t)
	_, before := exportJSON(t, r, lib)
	signIn(t, r, persist.Person{Trainee: "alice"})
	r.Restart() // her open shift
	r.Turn("applying oxygen via non-rebreather at 15 L/min")
	r.Turn("/wait 10m")
	r.Turn("give salbutamol 5 mg nebulised")
	r.Turn("/diagnosis pneumonia")
	r.Turn("/dispo ward")
	signIn(t, r, persist.Person{Instructor: true})
	_, after := exportJSON(t, r, lib)
	byID := map[string]string{}
	for _, s := range after {
		byID[s["id"].(string)] = pretty(s)
	}
	for _, s := range before {
		if now, ok := byID[s["id"].(string)]; !ok || now != pretty(s) {
			t.Errorf("statement %s changed when the case went on:\n%s\nnow:\n%s", s["id"], pretty(s), now)
		}
	}
	if len(after) <= len(before) {
		t.Errorf("%d statements after the case closed, %d before: closing it added none", len(after), len(before))
	}
}

// A case the instructor ended from the board is scored, not completed, and its disposition,
// never given, fails; a critical action whose window had not closed when it ended (oxygen within
// 5 minutes, ended at once) was not reachable and is neither passed nor failed.
func TestXAPICaseEndedByTheInstructor(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := sessiontest.Trainee(t, "carol")
	r.Turn("/admit patient_1 asthma-exacerbation")
	r.Turn("/vitals")
	if err := r.S.End(func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	signIn(t, r, persist.Person{Instructor: true})
	_, statements := exportJSON(t, r, lib)
	var verbs []string
	for i, s := range statements {
		for _, problem := range xapiProblems(s) {
			t.Errorf("statement %d: %s", i, problem)
		}
		verb := s["verb"].(map[string]any)["display"].(map[string]any)["en-GB"].(string)
		object := strings.TrimPrefix(s["object"].(map[string]any)["id"].(string), records.DefaultXAPIBase+"scenarios/asthma-exacerbation")
		verbs = append(verbs, verb+" "+object)
		result := s["result"].(map[string]any)
		switch object {
		case "":
			if result["completion"] != false || result["score"] == nil {
				t.Errorf("the ended case's result %v: want scored, not completed", result)
			}
		case "/disposition":
			if result["response"] != nil || result["success"] != false {
				t.Errorf("the ended case's disposition %v: want failed, with no place given", result)
			}
		}
	}
	got := strings.Join(verbs, "\n")
	for _, want := range []string{"passed /critical-actions/vitals", "failed /diagnosis", "failed /disposition", "scored "} {
		if !strings.Contains(got, want) {
			t.Errorf("statements lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/critical-actions/oxygen") {
		t.Errorf("oxygen, whose window was still open when the case ended, is judged:\n%s", got)
	}
	if strings.Contains(got, "completed") || !strings.HasSuffix(got, "scored ") {
		t.Errorf("the ended case is completed, or its statement is not last:\n%s", got)
	}
}

// The statements' times are wall times of the shift, and within a case a later ward time is
// never an earlier wall time.
func TestXAPITimestampsFollowTheWardClock(t *testing.T) {
	r, lib := classStore(t)
	_, statements := exportJSON(t, r, lib)
	start := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	type point struct {
		ward float64
		at   time.Time
	}
	byCase := map[string][]point{}
	for _, s := range statements {
		at, err := time.Parse(time.RFC3339Nano, s["timestamp"].(string))
		if err != nil || at.Before(start) || at.After(start.Add(10*time.Minute)) {
			t.Errorf("timestamp %v (%v) is not the rig's wall time", s["timestamp"], err)
		}
		reg := s["context"].(map[string]any)["registration"].(string)
		ward := s["result"].(map[string]any)["extensions"].(map[string]any)[records.DefaultXAPIBase+"extensions/ward-seconds"].(float64)
		byCase[reg] = append(byCase[reg], point{ward, at})
	}
	for reg, points := range byCase {
		for _, a := range points {
			for _, b := range points {
				if a.ward < b.ward && a.at.After(b.at) {
					t.Errorf("registration %s: ward second %v at %v, after ward second %v at %v", reg, a.ward, a.at, b.ward, b.at)
				}
			}
		}
	}
}

// ofCase are the statements of the trainee's shift number si (0-based, in the order of their
// registrations).
func ofCase(all []map[string]any, trainee string, si int) []map[string]any {
	var regs []string
	byReg := map[string][]map[string]any{}
	for _, s := range all {
		if s["actor"].(map[string]any)["name"] != trainee {
			continue
		}
		reg := s["context"].(map[string]any)["registration"].(string)
		if _, ok := byReg[reg]; !ok {
			regs = append(regs, reg)
		}
		byReg[reg] = append(byReg[reg], s)
	}
	if si >= len(regs) {
		return nil
	}
	return byReg[regs[si]]
}

// split parts the case's statement (its object the case) from its events'.
func split(statements []map[string]any, caseIRI string) (completed, events []map[string]any) {
	for _, s := range statements {
		if s["object"].(map[string]any)["id"] == caseIRI {
			if strings.HasSuffix(s["verb"].(map[string]any)["id"].(string), "/completed") {
				completed = append(completed, s)
			}
			continue
		}
		events = append(events, s)
	}
	return completed, events
}

func countVerb(statements []map[string]any, verb, object string) int {
	n := 0
	for _, s := range statements {
		if strings.HasSuffix(s["verb"].(map[string]any)["id"].(string), "/"+verb) && strings.Contains(s["object"].(map[string]any)["id"].(string), object) {
			n++
		}
	}
	return n
}

func verbsOf(statements []map[string]any) string {
	var b strings.Builder
	for _, s := range statements {
		fmt.Fprintf(&b, "%s %s\n", s["verb"].(map[string]any)["id"], s["object"].(map[string]any)["id"])
	}
	return b.String()
}

func pretty(v any) string {
	data, _ := json.MarshalIndent(v, "", "  ")
	return string(data)
}

// The xAPI 1.0.3 data model, as far as ward's statements use it.
var (
	uuidPattern     = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	durationPattern = regexp.MustCompile(`^P(\d+D)?T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?$`)
	languageTag     = regexp.MustCompile(`^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$`)
)

// xapiProblems is what in s breaks the rules of an xAPI statement: the required properties and
// their types, an actor with exactly one identifier, IRIs where IRIs go, UUIDs, RFC 3339 times,
// a scaled score in [-1, 1] and a raw one between min and max.
func xapiProblems(s map[string]any) []string {
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	known(s, bad, "statement", "id", "actor", "verb", "object", "result", "context", "timestamp")
	if id, _ := s["id"].(string); !uuidPattern.MatchString(id) {
		bad("id %v is not a UUID", s["id"])
	}
	if at, ok := s["timestamp"].(string); !ok {
		bad("no timestamp")
	} else if _, err := time.Parse(time.RFC3339Nano, at); err != nil {
		bad("timestamp %q is not RFC 3339", at)
	}
	actor, _ := s["actor"].(map[string]any)
	ifis := 0
	for _, ifi := range []string{"mbox", "mbox_sha1sum", "openid", "account"} {
		if actor[ifi] != nil {
			ifis++
		}
	}
	if ifis != 1 || (actor["objectType"] != nil && actor["objectType"] != "Agent") {
		bad("actor %v is not an agent with exactly one identifier", actor)
	}
	if account, ok := actor["account"].(map[string]any); ok {
		if name, _ := account["name"].(string); name == "" || !isIRI(account["homePage"]) {
			bad("account %v has no name or a home page that is not an IRL", account)
		}
	}
	verb, _ := s["verb"].(map[string]any)
	if !isIRI(verb["id"]) {
		bad("verb id %v is not an IRI", verb["id"])
	}
	languageMap(verb["display"], "verb display", bad)
	activity(s["object"], "object", bad)
	if r, ok := s["result"].(map[string]any); ok {
		resultProblems(r, bad)
	}
	context, ok := s["context"].(map[string]any)
	if !ok {
		return p
	}
	if reg, _ := context["registration"].(string); !uuidPattern.MatchString(reg) {
		bad("registration %v is not a UUID", context["registration"])
	}
	if lang, _ := context["language"].(string); !languageTag.MatchString(lang) {
		bad("context language %v is not a language tag", context["language"])
	}
	extensions(context["extensions"], bad)
	ca, _ := context["contextActivities"].(map[string]any)
	known(ca, bad, "contextActivities", "parent", "grouping", "category", "other")
	for kind, list := range ca {
		items, ok := list.([]any)
		if !ok {
			bad("contextActivities %s is not an array", kind)
		}
		for _, a := range items {
			activity(a, "context activity", bad)
		}
	}
	return p
}

func resultProblems(r map[string]any, bad func(string, ...any)) {
	known(r, bad, "result", "score", "success", "completion", "response", "duration", "extensions")
	for _, flag := range []string{"success", "completion"} {
		if _, ok := r[flag].(bool); r[flag] != nil && !ok {
			bad("result %s %v is not a boolean", flag, r[flag])
		}
	}
	if d, ok := r["duration"].(string); r["duration"] != nil && (!ok || !durationPattern.MatchString(d)) {
		bad("duration %v is not ISO 8601", r["duration"])
	}
	if r["extensions"] != nil {
		extensions(r["extensions"], bad)
	}
	score, ok := r["score"].(map[string]any)
	if !ok {
		return
	}
	scaled, _ := score["scaled"].(float64)
	raw, _ := score["raw"].(float64)
	lo, _ := score["min"].(float64)
	hi, _ := score["max"].(float64)
	if math.Abs(scaled) > 1 || lo >= hi || raw < lo || raw > hi {
		bad("score %v: scaled outside [-1, 1] or raw outside min..max", score)
	}
}

func activity(v any, what string, bad func(string, ...any)) {
	a, _ := v.(map[string]any)
	if !isIRI(a["id"]) || (a["objectType"] != nil && a["objectType"] != "Activity") {
		bad("%s %v is not an activity with an IRI", what, v)
	}
	def, ok := a["definition"].(map[string]any)
	if !ok {
		return
	}
	languageMap(def["name"], what+" name", bad)
	if def["description"] != nil {
		languageMap(def["description"], what+" description", bad)
	}
	if def["type"] != nil && !isIRI(def["type"]) {
		bad("%s type %v is not an IRI", what, def["type"])
	}
}

func languageMap(v any, what string, bad func(string, ...any)) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		bad("%s %v is not a language map", what, v)
	}
	for tag, text := range m {
		if _, ok := text.(string); !ok || !languageTag.MatchString(tag) {
			bad("%s has %q: %v", what, tag, text)
		}
	}
}

func extensions(v any, bad func(string, ...any)) {
	m, ok := v.(map[string]any)
	if !ok {
		bad("extensions %v are not an object", v)
	}
	for key := range m {
		if !isIRI(key) {
			bad("extension key %q is not an IRI", key)
		}
	}
}

// known reports the keys of m that the spec does not define for what.
func known(m map[string]any, bad func(string, ...any), what string, keys ...string) {
	allowed := map[string]bool{}
	for _, k := range keys {
		allowed[k] = true
	}
	for k := range m {
		if !allowed[k] {
			bad("%s has %q, which xAPI does not define", what, k)
		}
	}
}

// isIRI: an absolute IRI, with a scheme and something after it.
func isIRI(v any) bool {
	s, ok := v.(string)
	if !ok || strings.ContainsAny(s, " \t\r\n<>\"{}|\\^`") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.IsAbs() && (u.Host != "" || u.Opaque != "")
}

// BenchmarkReadXAPI exports a class of 30 trainees who each played one shift of one asthma case
// to the end (every third with a critical error): what `ward report --format xapi` does once
// the database is open.
func BenchmarkReadXAPI(b *testing.B) {
	lib, err := scenario.Load()
	if err != nil {
		b.Fatal(err)
	}
	r := sessiontest.New(b, func(*session.Config) {})
	for i := range 30 {
		if err := r.Store.SignIn(persist.Person{Trainee: fmt.Sprintf("trainee%02d", i)}, nil); err != nil {
			b.Fatal(err)
		}
		r.NewShift()
		closeAsthma(r, i%3 == 0)
	}
	if err := r.Store.SignIn(persist.Person{Instructor: true}, nil); err != nil {
		b.Fatal(err)
	}
	statements := 0
	b.ReportAllocs()
	for b.Loop() {
		out, err := records.ReadXAPI(r.Store, lib, records.XAPINames{Base: records.DefaultXAPIBase})
		if err != nil {
			b.Fatal(err)
		}
		statements = len(out)
	}
	b.ReportMetric(float64(statements), "statements")
}

// A patient the trainee never attended is not attempted: an ended shift sends nothing of theirs
// to the store, and the class report scores the shift on the patients attempted alone.
func TestUnseenPatientsAreNotAttempted(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := sessiontest.Trainee(t, "dana")
	r.Turn("/admit patient_1 asthma-exacerbation")
	r.Turn("/admit patient_2 sepsis-urosepsis")
	r.Turn("/admit patient_3 hypoglycaemia")
	r.Turn("/vitals")
	r.Turn("/wait 2m")
	if err := r.S.End(func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	signIn(t, r, persist.Person{Instructor: true})
	_, statements := exportJSON(t, r, lib)
	for _, s := range statements {
		if id := s["object"].(map[string]any)["id"].(string); !strings.Contains(id, "/scenarios/hypoglycaemia") {
			t.Errorf("a statement for a patient never attended: %s %s", s["verb"].(map[string]any)["id"], id)
		}
	}
	if len(statements) == 0 {
		t.Error("no statement for the patient attended")
	}
	class, err := records.ReadClassReport(r.Store, lib)
	if err != nil {
		t.Fatal(err)
	}
	shift := class.Trainees[0].Shifts[0]
	if !strings.Contains(class.Markdown(), "| 3 (2 not attempted) |") {
		t.Errorf("the class report does not say who was not attempted:\n%s", class.Markdown())
	}
	if shift.NotAttempted() != 2 {
		t.Errorf("%d patients not attempted, want 2", shift.NotAttempted())
	}
	var attended records.PatientResult
	for _, p := range shift.Patients {
		if p.Attempted {
			attended = p
		}
	}
	if want := (100*attended.Score + attended.Max/2) / attended.Max; shift.ScorePercent() != want {
		t.Errorf("the shift scores %d%%, want the attended patient's %d%%", shift.ScorePercent(), want)
	}
}
