package knowledge

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestTermsAreStemmedWordsWithoutStopWordsOrPossessives(t *testing.T) {
	for text, want := range map[string][]string{
		"What is the patient's adrenaline dose?":          {"patient", "adrenalin", "dose"},
		"Give 0.5 mg IM, then repeat after 5 minutes":     {"give", "0.5", "mg", "im", "repeat", "5", "minut"},
		"SpO2 target 94–98% in acute asthma; it’s severe": {"spo2", "target", "94", "98", "acut", "asthma", "sever"},
		"—, !? …":            nil,
		"The Nurse’s NURSES": {"nurs", "nurs"},
	} {
		if got := terms(text); !slices.Equal(got, want) {
			t.Errorf("terms(%q) = %q, want %q", text, got, want)
		}
	}
}

// A one-section library whose scores can be worked out by hand.
func tinyIndex(t *testing.T, sections ...Section) *lexicalIndex {
	t.Helper()
	lib := Library{Cards: []Card{{ID: "c", Title: "Oxygen", Sections: sections}}}
	l, err := buildLexical(context.Background(), lib, lib.chunks(), func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestFullTextScoresAsClassicTFIDF(t *testing.T) {
	l := tinyIndex(t,
		Section{Heading: "Targets", Text: "target saturation target"},
		Section{Heading: "Masks", Text: "a mask delivers oxygen"})
	hits, err := l.search(context.Background(), "target", 5)
	if err != nil || len(hits) != 1 || hits[0].chunk != 0 {
		t.Fatalf("hits %v, err %v", hits, err)
	}
	// One term: "target" is in chunk 0's heading and text, in neither title. idf = 1 + ln(2/(df+1)).
	idfIn, idfOut := 1+math.Log(2.0/2), 1+math.Log(2.0/1)
	norm := func(n int) float64 { return float64(float32(1 / math.Sqrt(float64(n)))) }
	queryNorm := 1 / math.Sqrt((0.5*idfOut)*(0.5*idfOut)+(0.5*idfIn)*(0.5*idfIn)+idfIn*idfIn)
	heading := 1 * norm(1) * idfIn * (0.5 * idfIn * queryNorm)
	text := math.Sqrt(2) * norm(3) * idfIn * (1 * idfIn * queryNorm)
	want := (heading + text) * 2 / 3 // two fields of three matched
	if math.Abs(hits[0].score-want) > 1e-12 {
		t.Errorf("score %v, want %v", hits[0].score, want)
	}
}

func TestFullTextRanksTextOverTitleAndKeepsTiesInOrder(t *testing.T) {
	l := tinyIndex(t,
		Section{Heading: "One", Text: "nebuliser driven by air"},
		Section{Heading: "Two", Text: "nebuliser driven by air"},
		Section{Heading: "Three", Text: "oxygen oxygen oxygen via mask"})
	hits, err := l.search(context.Background(), "nebuliser air", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].chunk != 0 || hits[1].chunk != 1 || hits[0].score != hits[1].score {
		t.Errorf("equal sections should tie in library order: %v", hits)
	}
	if hits, _ := l.search(context.Background(), "the and of", 3); len(hits) != 0 {
		t.Errorf("a query of stop words found %v", hits)
	}
	if hits, _ := l.search(context.Background(), "oxygen mask", 1); len(hits) != 1 || hits[0].chunk != 2 {
		t.Errorf("oxygen mask: %v, want the third section (its text) first", hits)
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"the patient's SpO2 is 88%", "it’s", "0.5 mg", "\xff\xfe", "ｓ＇s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range terms(s) {
			if w == "" || strings.IndexFunc(w, unicode.IsSpace) >= 0 {
				t.Fatalf("terms(%q) holds %q", s, w)
			}
		}
	})
}
