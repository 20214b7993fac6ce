package knowledge

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestExtractAnswersOfflineFromTheBestPassage runs the whole offline path: retrieval, then
// the best passage's most relevant sentences with its citation. The first two questions put
// the answering section second in the full-text ranking; the sentence ranking finds it.
func TestExtractAnswersOfflineFromTheBestPassage(t *testing.T) {
	kb := New(Options{})
	tests := []struct{ question, want string }{
		{"What is the IM adrenaline dose for an adult in anaphylaxis?", "0.5 mg"},
		{"What is the starting dose of naloxone?", "400 micrograms IV"},
		{"What is the glucagon dose if there is no IV access?", "glucagon 1 mg IM"},
		{"What are the sepsis six?", "Sepsis Six:\n- Give oxygen to keep saturation at 94–98% (88–92% if at risk of hypercapnia).\n- Take blood cultures"},
		{"How long after tadalafil are nitrates contraindicated?", "48 hours of tadalafil"},
	}
	for _, tt := range tests {
		r := retrieve(t, kb, tt.question, 3)
		answer, ok := Extract(tt.question, r.Passages)
		c := CheckCitations(answer, r.Passages)
		if !ok || !strings.Contains(answer, tt.want) || c.Removed != 0 || len(c.Cited) != 1 {
			t.Errorf("%s\n  answer %q\n  want it to contain %q and cite one retrieved passage", tt.question, answer, tt.want)
			continue
		}
		quote, cite, _ := strings.Cut(answer, " [")
		if first := splitSentences(quote)[0].text; !strings.Contains(c.Cited[0].Text, first) || cite != strconv.Itoa(c.Cited[0].N)+"]" {
			t.Errorf("answer %q does not quote the passage it cites, %+v", answer, c.Cited[0])
		}
	}
}

func TestExtractWithoutPassages(t *testing.T) {
	if answer, ok := Extract("anything?", nil); ok || answer != "" {
		t.Errorf("got %q, %v", answer, ok)
	}
}

func TestSplitSentences(t *testing.T) {
	text := "Give 0.5 mg now, e.g. into the thigh. Repeat after 5 minutes!\n" +
		"- **First** item. With two sentences.\n" +
		"2. Numbered item\n\nNew paragraph without a stop\nthat wraps? Yes."
	want := []sentence{
		{"Give 0.5 mg now, e.g. into the thigh.", false}, {"Repeat after 5 minutes!", false},
		{"First item.", true}, {"With two sentences.", true}, {"Numbered item", true},
		{"New paragraph without a stop that wraps?", false}, {"Yes.", false},
	}
	if got := splitSentences(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestExtractQuotesTheNumbersAsked(t *testing.T) {
	kb := New(Options{})
	for _, tt := range []struct{ question, want, not string }{
		{"target sats in COPD?", "88–92%", "smoker over 50"},
		{"what's the max paracetamol dose?", "at most 4 g in 24 hours", "ketamine"},
	} {
		answer, _ := Extract(tt.question, retrieve(t, kb, tt.question, 3).Passages)
		if !strings.Contains(answer, tt.want) || strings.Contains(answer, tt.not) {
			t.Errorf("%s\n  answer %q\n  want %q and not %q", tt.question, answer, tt.want, tt.not)
		}
	}
}
