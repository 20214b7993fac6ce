package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/records"
)

// clearTimes clears the rig's shift n times, with something admitted before each clear.
func clearTimes(r *rig, n int) {
	r.t.Helper()
	for i := 0; i < n; i++ {
		r.turn("/admit patient_1")
		r.turn("/clear")
	}
}

func TestArchivesAreNumberedAndFoundByNumberOrPrefix(t *testing.T) {
	r := newRig(t)
	clearTimes(r, 3)
	var list bytes.Buffer
	if err := records.ArchiveList(r.store, &list); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(list.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "  1  ") || !strings.HasPrefix(lines[2], "  3  ") {
		t.Fatalf("archive list:\n%s", list.String())
	}
	entries, err := records.ArchiveEntries(r.store, r.s.ID())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ref     string
		want    int // archive number; 0 for an error
		wantErr string
	}{
		{"2", 2, ""},
		{"#3", 3, ""},
		{entries[0].ID, 1, ""},
		{entries[1].ID[:len(entries[1].ID)-3], 2, ""},
		{"4", 0, `no archive "4"`},
		{"0", 0, `no archive "0"`},
		{"nope", 0, `no archive "nope"`},
		{entries[0].ID[:4], 0, "names 3 archives"},
	}
	for _, tt := range tests {
		got, err := records.FindArchive(entries, tt.ref)
		switch {
		case tt.want != 0 && (err != nil || got.Number != tt.want):
			t.Errorf("%q: archive %d, %v; want %d", tt.ref, got.Number, err, tt.want)
		case tt.want == 0 && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%q: err %v, want one saying %q", tt.ref, err, tt.wantErr)
		}
	}
}

func TestArchiveRestoreByNumberSaysWhereTheOldContentWent(t *testing.T) {
	r := newRig(t)
	clearTimes(r, 1)
	r.turn("/admit patient_2")
	var out bytes.Buffer
	if err := records.ArchiveRestore(r.store, "1", &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "restored archive 1") || !strings.Contains(got, "archive 2") {
		t.Fatalf("restore said %q", got)
	}
	var show bytes.Buffer
	if err := records.ArchiveShow(r.store, "2", &show); err != nil || !strings.Contains(show.String(), `"patient_2"`) ||
		!strings.Contains(show.String(), `"number": 2`) {
		t.Fatalf("show 2: %v\n%s", err, show.String())
	}
	if err := records.ArchiveShow(r.store, "9", &show); !errors.Is(err, persist.ErrNotFound) {
		t.Fatalf("show 9: %v", err)
	}
}

func TestExportWritesSpeakersAndTimes(t *testing.T) {
	r := newRig(t)
	r.turn("review patient_1")
	r.turn("any allergies?")
	r.turn("/admit patient_2")
	tr, err := records.Export(r.store, "patient_1")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Conversations) != 1 || tr.Conversations[0].PatientID != "patient_1" || tr.Conversations[0].Name == "" {
		t.Fatalf("conversations %+v", tr.Conversations)
	}
	md := tr.Markdown()
	for _, want := range []string{"## patient_1 — ", "**You** · T+00:", "any allergies?", "\n**Patient** · "} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	first := tr.Conversations[0].Messages[0]
	if !strings.Contains(md, first.At.Local().Format("15:04:05")) {
		t.Errorf("markdown lacks the wall-clock time of the first message:\n%s", md)
	}

	whole, err := records.Export(r.store, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range whole.Conversations {
		ids = append(ids, c.PatientID)
	}
	// The session's own conversation, what was said before a patient was active, comes first.
	if strings.Join(ids, ",") != ",patient_1,patient_2" {
		t.Errorf("the shift's conversations are %q", ids)
	}
	if md := whole.Markdown(); !strings.Contains(md, "## Before any patient was active") {
		t.Errorf("the shift's markdown lacks the session conversation:\n%s", md)
	}
	if _, err := records.Export(r.store, "patient_9"); err == nil || !strings.Contains(err.Error(), "patient_1") {
		t.Errorf("unknown patient: %v", err)
	}
}

func TestStatsReportHidesInternals(t *testing.T) {
	r := newRig(t)
	r.turn("review patient_1")
	r.turn("how are you?")
	rep, err := records.ReadStats(r.store)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(rep)
	for _, internal := range []string{"recent_ns", "next", "total_ns"} {
		if bytes.Contains(raw, []byte(internal)) {
			t.Errorf("stats JSON shows %s: %s", internal, raw)
		}
	}
	var table bytes.Buffer
	if err := rep.Table(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"patient", "merges", "merge p95", "total"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

func TestIsClearRequest(t *testing.T) {
	for text, want := range map[string]bool{
		"/clear": true, "/CLEAR": true, "clear": true, "Clear patient context": true, "clear context": true,
		"reset all patients": true, "clear the patient's airway": false, "/clearly": false, "/help": false,
		"how are you?": false, "": false,
	} {
		if got := IsClearRequest(text); got != want {
			t.Errorf("IsClearRequest(%q) = %v, want %v", text, got, want)
		}
	}
}
