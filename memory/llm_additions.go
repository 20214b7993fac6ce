package memory

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLLMText bounds what the model may write into memory in one tool call. A quote or a finding
// is a sentence or two; anything longer is the model narrating into the wrong channel.
const MaxLLMText = 300

// Errors returned to the model's tool call, so it can correct itself.
var (
	ErrEmpty        = errors.New("text is empty")
	ErrTooLong      = fmt.Errorf("text is longer than %d characters", MaxLLMText)
	ErrControlChars = errors.New("text contains control characters or invalid UTF-8")
	ErrDuplicate    = errors.New("the same text is already recorded")
)

// AddQuote records something said that the model judged worth remembering (record_quote).
// speaker may be empty; it is validated like the quote when present.
func (m *Memory) AddQuote(t float64, speaker, quote string) error {
	speaker = strings.TrimSpace(speaker)
	if speaker != "" {
		if err := checkLLMText(speaker); err != nil {
			return fmt.Errorf("speaker: %w", err)
		}
	}
	return m.addLLM(KeyQuotes, Item{T: t, Text: quote, Speaker: speaker})
}

// AddAssessment records an examination finding the model reported (record_assessment).
func (m *Memory) AddAssessment(t float64, finding string) error {
	return m.addLLM(Assessments, Item{T: t, Text: finding})
}

func (m *Memory) addLLM(c Category, it Item) error {
	it.Text = strings.TrimSpace(it.Text)
	if err := checkLLMText(it.Text); err != nil {
		return err
	}
	for _, old := range m.Items(c) {
		if old.Text == it.Text {
			return ErrDuplicate
		}
	}
	return m.Record(c, it)
}

func checkLLMText(s string) error {
	switch {
	case s == "":
		return ErrEmpty
	case !utf8.ValidString(s):
		return ErrControlChars
	case utf8.RuneCountInString(s) > MaxLLMText:
		return ErrTooLong
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return ErrControlChars
	}
	return nil
}
