package replay

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
)

var update = flag.Bool("update", false, "rewrite the expected diff reports in testdata")

// recall-a.jsonl and recall-b.jsonl are one shift recorded twice on the test clock (session's
// TestWriteTraceFixture): three vitals checks over eleven minutes. For b, the vitals-trend
// recall rule was switched off, so b's last call remembers only the newest reading. The reports
// of `ward diff recall-a.jsonl recall-b.jsonl` are the expected files beside them.
func TestDiffOfOneRecallRule(t *testing.T) {
	a, b := readTrace(t, "recall-a.jsonl"), readTrace(t, "recall-b.jsonl")
	report := Diff(a, b, "recall-a.jsonl", "recall-b.jsonl")
	if report.Aligned != 3 || len(report.Changed) != 1 || report.Changed[0].Sections[0].Name != "memory" {
		t.Fatalf("report: %+v", report)
	}
	golden(t, "recall.diff.txt", report.String())
	golden(t, "recall.diff.md", report.Markdown())
	if same := Diff(a, a, "recall-a.jsonl", "recall-a.jsonl"); len(same.Changed) != 0 || same.Summary() != "recall-a.jsonl and recall-a.jsonl send the same requests: 3 calls aligned by turn and agent" {
		t.Fatalf("a trace against itself: %s", same.String())
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
