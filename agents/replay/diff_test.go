package replay

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

var update = flag.Bool("update", false, "rewrite the expected diff reports in testdata")

// recall-a.jsonl and recall-b.jsonl are one shift recorded twice on the test clock (session's
// TestWriteTraceFixture): three vitals checks over eleven minutes. For b, the vitals-trend
// recall rule was switched off, so b's last call remembers only the newest reading. The reports
// of `ward diff recall-a.jsonl recall-b.jsonl` are the expected files beside them.
func TestDiffOfOneRecallRule(t *testing.T) {
	a, b := readTrace(t, "recall-a.jsonl"), readTrace(t, "recall-b.jsonl")
	report := Diff(a, b, "recall-a.jsonl", "recall-b.jsonl", false)
	if report.Aligned != 3 || len(report.Changed) != 1 || report.Changed[0].Sections[0].Name != "memory" {
		t.Fatalf("report: %+v", report)
	}
	golden(t, "recall.diff.txt", report.String())
	golden(t, "recall.diff.md", report.Markdown())
	if same := Diff(a, a, "recall-a.jsonl", "recall-a.jsonl", true); len(same.Changed) != 0 || same.Summary() != "recall-a.jsonl and recall-a.jsonl send the same requests: 3 calls aligned by turn and agent" {
		t.Fatalf("a trace against itself: %s", same.String())
	}
}

// Two runs of the same shift differ in their session ID and in the wall-clock time each prompt
// was built: the diff masks both unless asked for an exact comparison, and nothing else.
func TestDiffMasksWhatEveryTwoRunsDiffer(t *testing.T) {
	run := func(id, at, extra string) []llm.TraceRun {
		dynamic := `{"conversation_id": "` + id + `", "generated_at": "` + at + `"}` + extra
		call := llm.TraceRecord{Kind: llm.KindCall, Turn: 1, Seq: 1, Agent: "Patient",
			Messages:     []memory.Message{{Role: memory.RoleSystem, Content: dynamic}},
			SectionTexts: map[string]string{"dynamic": dynamic}}
		return []llm.TraceRun{{Header: llm.TraceHeader{SessionID: id}, Calls: []llm.TraceRecord{call}}}
	}
	a := run("s20261125T040122.861649428", "2026-11-25T04:01:22.866Z", "")
	b := run("s20261125T040122.907149637", "2026-11-25T04:01:22.912Z", "")
	if r := Diff(a, b, "a", "b", false); len(r.Changed) != 0 {
		t.Errorf("masked, the runs differ:\n%s", r.String())
	}
	if r := Diff(a, b, "a", "b", true); len(r.Changed) != 1 {
		t.Errorf("exact, the runs do not differ:\n%s", r.String())
	}
	c := run("s20261125T040122.907149637", "2026-11-25T04:01:22.912Z", " NEWS2 7")
	if r := Diff(a, c, "a", "c", false); len(r.Changed) != 1 || !strings.Contains(r.String(), "NEWS2 7") {
		t.Errorf("masking hid a real change:\n%s", r.String())
	}
}

func readTrace(t *testing.T, name string) []llm.TraceRun {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs, err := llm.ReadTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./agents/replay -update rewrites it):\n%s", name, got)
	}
}
