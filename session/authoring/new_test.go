package authoring

import (
	"os"
	"strings"
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

// A new scenario starts as a commented copy with its own id, and its copied review plays.
func TestNewFromExisting(t *testing.T) {
	lib, err := sc.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yamlFile, reviewFile, err := New(lib, "my-hypo", "hypoglycaemia", dir)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(yamlFile)
	for _, want := range []string{"# my-hypo: a new scenario, started from hypoglycaemia.", "\nid: my-hypo\n",
		"# One line the trainee sees on arrival", "# Where the patient should go"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the new file lacks %q", want)
		}
	}
	s, errs := sc.Parse(data)
	if len(errs) > 0 || s.ID != "my-hypo" {
		t.Fatalf("the new file does not parse as my-hypo: %v", errs)
	}
	if review, _ := os.ReadFile(reviewFile); !strings.Contains(string(review), "### Treated well") {
		t.Errorf("the review was not copied:\n%s", review)
	}
	r, err := Check(yamlFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		if p.Check != CheckNoFindings {
			t.Errorf("the copy does not pass: %s", p)
		}
	}
	if _, _, err := New(lib, "my-hypo", "hypoglycaemia", dir); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("a second New overwrote: %v", err)
	}
	for _, bad := range [][2]string{{"My Case", "hypoglycaemia"}, {"x", "no-such-case"}} {
		if _, _, err := New(lib, bad[0], bad[1], dir); err == nil {
			t.Errorf("New(%q, %q) was accepted", bad[0], bad[1])
		}
	}
}
