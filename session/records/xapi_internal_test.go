package records

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
)

// The ids are RFC 4122 version 5 UUIDs in the URL namespace, as any implementation derives them
// (these are Python's uuid.uuid5(uuid.NAMESPACE_URL, name)).
func TestNameUUIDIsVersion5OfTheURLNamespace(t *testing.T) {
	for name, want := range map[string]string{
		"https://ward.invalid/shifts/s1":                              "168cf649-de08-5e33-96cd-1294d3a9aa28",
		"https://ward.invalid/shifts/s1/patients/patient_1/completed": "40315a05-9c08-5c40-8758-c1678e7d0525",
	} {
		if got := nameUUID(name); got != want {
			t.Errorf("nameUUID(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestISODuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "PT0H0M0S",
		-time.Second:            "PT0H0M0S",
		1500 * time.Millisecond: "PT0H0M1.5S",
		time.Hour + 2*time.Minute + 3*time.Second + 456*time.Millisecond: "PT1H2M3.46S",
		26 * time.Hour: "PT26H0M0S",
	} {
		if got := isoDuration(d); got != want {
			t.Errorf("isoDuration(%v) = %s, want %s", d, got, want)
		}
	}
}

// An event's wall time is when the ward clock first reached it: the first message written at or
// after its ward time; past the last message, the last; with none, the shift's start.
func TestWallClockIsWhenTheWardClockReachedATime(t *testing.T) {
	start := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	c := wallClock{start: start, said: []memory.Message{{At: at(10), Sim: 0}, {At: at(20), Sim: 0}, {At: at(30), Sim: 60}, {At: at(95), Sim: 125}}}
	for ward, want := range map[float64]time.Time{0: at(10), 30: at(30), 60: at(30), 61: at(95), 125: at(95), 4000: at(95)} {
		if got := c.at(ward); !got.Equal(want) {
			t.Errorf("ward second %v at %v, want %v", ward, got, want)
		}
	}
	if got := (wallClock{start: start}).at(99); !got.Equal(start) {
		t.Errorf("with nothing said: %v, want the shift's start", got)
	}
}

// Any base either is refused or is an http(s) IRI with a host that ends with a slash, which it
// gives back unchanged, and under which the names ward makes are IRIs.
func FuzzXAPIBase(f *testing.F) {
	for _, s := range []string{DefaultXAPIBase, "https://lrs.example.org/ward", "http://x", "ftp://x/", "https://", "https://a/b?c", "https://a/%zz", "https://a/b c", "https://[::1]:8080/x/", "https://例え.jp/ward"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		base, err := XAPIBase(s)
		if err != nil {
			return
		}
		again, err := XAPIBase(base)
		if err != nil || again != base {
			t.Fatalf("XAPIBase(%q) = %q, which gives %q, %v", s, base, again, err)
		}
		u, err := url.Parse(base + "shifts/" + url.PathEscape("s 1/x") + "/patients/p")
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.HasSuffix(base, "/") ||
			strings.ContainsAny(base, " \t\r\n") {
			t.Fatalf("XAPIBase(%q) = %q: a name under it is not an IRI (%v)", s, base, err)
		}
	})
}

// A closed case of a shift no trainee signed in to: a moot critical action is left out, one not
// done fails when the patient left, each critical error is its own statement, a diagnosis never
// given fails its part, and the case completes last.
func TestShiftStatementsOfAClosedCase(t *testing.T) {
	start := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	done := 30.0
	r := aar.Report{PatientID: "patient_1", Attempted: true, Scenario: "sepsis", Title: "Sepsis", Arrived: 100, Duration: 600,
		CriticalActions: []aar.CriticalOutcome{
			{ID: "fluids", Description: "Fluids", Done: true, Met: true, At: &done, Points: 10},
			{ID: "allergies", Description: "Allergies first", Moot: true, Met: true, Points: 10},
			{ID: "antibiotics", Description: "Antibiotics", Points: 20},
		},
		CriticalErrors: []physio.ErrorRecord{{T: 200, ID: "x"}, {T: 300, ID: "x"}},
		Disposition:    &physio.DispositionRecord{T: 700, Place: "icu", Accepted: true},
		Score: aar.Score{Total: 40, Max: 100, Parts: []aar.ScorePart{
			{Name: aar.PartDiagnosis, Max: 35}, {Name: aar.PartDisposition, Points: 20, Max: 20}}},
	}
	chat := []memory.Message{{At: start.Add(time.Minute), Sim: 100}, {At: start.Add(2 * time.Minute), Sim: 400}, {At: start.Add(5 * time.Minute), Sim: 700}}
	got := shiftStatements(XAPINames{Base: DefaultXAPIBase, HomePage: "https://sso.example.org/"}, xapiShift{info: persist.SessionInfo{ID: "s1", Trainee: "alice", CreatedAt: start}, reports: []aar.Report{r}, chat: chat})
	var lines []string
	ids := map[string]bool{}
	for _, s := range got {
		lines = append(lines, s.Verb.Display[xapiLanguage]+" "+strings.TrimPrefix(s.Object.ID, DefaultXAPIBase+"scenarios/sepsis")+" "+s.Timestamp[11:19])
		ids[s.ID] = true
		if s.Actor.Account != (Account{HomePage: "https://sso.example.org/", Name: "alice"}) {
			t.Errorf("actor %+v, want alice's account on the home page given", s.Actor)
		}
	}
	want := []string{
		"passed /critical-actions/fluids 08:02:00", // ward second 130: the clock reached it in the turn at 08:02
		"failed /critical-errors/x 08:02:00",
		"failed /critical-errors/x 08:02:00",
		"failed /critical-actions/antibiotics 08:05:00",
		"failed /diagnosis 08:05:00",
		"passed /disposition 08:05:00",
		"completed  08:05:00",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("statements:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if len(ids) != len(got) {
		t.Errorf("%d ids for %d statements", len(ids), len(got))
	}
	if c := got[len(got)-1].Result; c.Duration != "PT0H10M0S" || c.Extensions[DefaultXAPIBase+"extensions/wall-duration"] != "PT0H4M0S" || c.Score.Scaled != 0.4 {
		t.Errorf("the case's result %+v: want 10 minutes of sim time, 4 of wall time in an extension, scaled 0.4", c)
	}
}
