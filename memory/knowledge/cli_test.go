package knowledge

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestWriteListShowsEveryCardAndWhatWasSkipped(t *testing.T) {
	lib, err := Load("testdata/cards")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteList(&out, lib); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, c := range lib.Cards {
		if !strings.Contains(got, c.ID+" ") {
			t.Errorf("list lacks %s", c.ID)
		}
	}
	for _, want := range []string{"ID  ", "Resuscitation Council UK, Emergency treatment of anaphylaxis (2021)", "skipped: testdata/cards/broken.md", "skipped: testdata/cards/duplicate.md"} {
		if !strings.Contains(got, want) {
			t.Errorf("list lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\a\r") {
		t.Error("control characters in the list")
	}
}

func TestWriteShowPrintsTheWholeCard(t *testing.T) {
	lib, err := Load("testdata/cards")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteShow(&out, lib, "anaphylaxis"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"Anaphylaxis  (anaphylaxis)\nSource: Resuscitation Council UK, Emergency treatment of anaphylaxis (2021)\nFrom: built-in\n",
		"  epinephrine IM 0.5 mg (adult and child over 12) — 0.5 mL of 1 mg/mL (1:1000); repeat after 5 minutes if no better\n",
		"\n## Adrenaline\nGive intramuscular adrenaline first",
		"\n## Observation and discharge\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("show lacks %q:\n%s", want, got)
		}
	}
	out.Reset()
	if err := WriteShow(&out, lib, "escapes"); err != nil || strings.ContainsAny(out.String(), "\x1b\a\r") {
		t.Errorf("user card shown with control characters: %q, %v", out.String(), err)
	}
	if err := WriteShow(&out, lib, "nope"); err == nil || !strings.Contains(err.Error(), "ward kb list") {
		t.Errorf("unknown id: %v", err)
	}
}

func TestWriteSearchShowsScoresAndWhy(t *testing.T) {
	kb := New(Options{Embedder: &fakeEmbedder{failOne: errors.New("offline")}, Model: "fake-embed"})
	r, err := kb.Retrieve(context.Background(), "naloxone dose", 2)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteSearch(&out, r); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"[1] opioid-toxicity › Naloxone dose  (Opioid toxicity and naloxone)\n    score 0.0164: lexical #1 (", "[2] ", "semantic search off: offline"} {
		if !strings.Contains(got, want) {
			t.Errorf("search output lacks %q:\n%s", want, got)
		}
	}
	out.Reset()
	_ = WriteSearch(&out, Retrieval{Query: "xyz\x1b[2J"})
	if got := out.String(); got != "Nothing found for \"xyz\\x1b[2J\".\n" {
		t.Errorf("empty search: %q", got)
	}
}
