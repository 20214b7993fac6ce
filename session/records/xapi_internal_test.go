package records

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
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
