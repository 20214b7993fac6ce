package session

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/themes"
)

// Prefs are a trainee's preferences, kept with the trainee between shifts. Each one is a
// default: a flag given on the command line overrides it for that run.
type Prefs struct {
	Handoff string  `json:"handoff,omitempty"` // what /handoff drafts: sbar, ipass or mist
	Theme   string  `json:"theme,omitempty"`   // the TUI's colours
	Speed   float64 `json:"speed,omitempty"`   // the sim clock's speed in the TUI, 1–10
	Window  string  `json:"window,omitempty"`  // block or sliding
	Model   string  `json:"model,omitempty"`   // the Ollama model
}

// prefKeys are the names /prefs takes, in the order it shows them.
var prefKeys = []string{"handoff", "theme", "speed", "window", "model"}

var handoffFormats = []string{"sbar", "ipass", "mist"}

var handoffNames = map[string]string{"sbar": "SBAR", "ipass": "I-PASS", "mist": "MIST"}

// LoadPrefs reads a trainee's preferences; none stored is the zero Prefs.
func LoadPrefs(store *persist.Store, trainee string) (Prefs, error) {
	var p Prefs
	if trainee == "" {
		return p, nil
	}
	doc, err := store.Prefs(trainee)
	if err != nil || doc == nil {
		return p, err
	}
	if err := json.Unmarshal(doc, &p); err != nil {
		return p, fmt.Errorf("the preferences of %s are unreadable: %w", trainee, err)
	}
	return p, nil
}

// Save stores the preferences for trainee.
func (p Prefs) Save(store *persist.Store, trainee string) error {
	doc, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return store.PutPrefs(trainee, doc)
}

// Set changes one preference from what the trainee typed; a theme is one the TUI has (themes.Names).
// An empty value clears it back to ward's default.
func (p *Prefs) Set(key, value string) error {
	value = strings.TrimSpace(value)
	switch key {
	case "handoff":
		value = strings.ToLower(strings.ReplaceAll(value, "-", ""))
		if value != "" && !slices.Contains(handoffFormats, value) {
			return fmt.Errorf("handoff must be sbar, ipass or mist, not %q", value)
		}
		p.Handoff = value
	case "theme":
		if value != "" && !slices.Contains(themes.Names, value) {
			return fmt.Errorf("theme must be one of %s, not %q", strings.Join(themes.Names, ", "), value)
		}
		p.Theme = value
	case "speed":
		n, err := strconv.ParseFloat(value, 64)
		if value != "" && (err != nil || n < 1 || n > 10) {
			return fmt.Errorf("speed must be from 1 to 10, not %q", value)
		}
		p.Speed = n
	case "window":
		if value != "" && value != string(memory.WindowBlock) && value != string(memory.WindowSliding) {
			return fmt.Errorf("window must be block or sliding, not %q", value)
		}
		p.Window = value
	case "model":
		if len(value) > 100 || strings.ContainsFunc(value, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) {
			return fmt.Errorf("%q is not a model name", value)
		}
		p.Model = value
	default:
		return fmt.Errorf("no preference %q — the preferences are %s", key, strings.Join(prefKeys, ", "))
	}
	return nil
}

// lines shows every preference, and ward's default where none is set.
func (p Prefs) lines() string {
	show := func(v, fallback string) string {
		if v == "" {
			return fallback + " (ward's default)"
		}
		return v
	}
	speed := ""
	if p.Speed > 0 {
		speed = strconv.FormatFloat(p.Speed, 'g', -1, 64)
	}
	return strings.Join([]string{
		"- handoff: " + show(p.Handoff, "sbar"),
		"- theme: " + show(p.Theme, "dark"),
		"- speed: " + show(speed, "1"),
		"- window: " + show(p.Window, string(memory.WindowBlock)),
		"- model: " + show(p.Model, "llama3.2, or WARD_MODEL"),
	}, "\n")
}

// cmdPrefs shows the trainee's preferences, or sets one: /prefs handoff ipass. A new speed
// applies at once; theme, window and model from the next start.
func (s *Session) cmdPrefs(_ context.Context, t *turn, arg string) {
	trainee := s.info.Trainee
	if trainee == "" {
		t.emit(ErrorEvent{Code: "NO_TRAINEE", Message: "this shift names no trainee, so there is no one to keep preferences for — start ward with --trainee NAME"})
		return
	}
	key, value, _ := strings.Cut(arg, " ")
	if key == "" {
		s.say(t, "Preferences of "+trainee+" (/prefs NAME VALUE changes one):\n\n"+s.prefs.lines())
		return
	}
	next := s.prefs
	if err := next.Set(strings.ToLower(key), value); err != nil {
		t.emit(ErrorEvent{Code: "USAGE", Message: err.Error()})
		return
	}
	if err := next.Save(s.cfg.Store, trainee); err != nil {
		t.emit(ErrorEvent{Code: CodeNotSaved, Message: "the preference was not saved: " + err.Error()})
		return
	}
	s.prefs = next
	when := "from the next start"
	if key == "speed" && next.Speed > 0 {
		s.speed, when = next.Speed, "now"
	}
	if key == "handoff" {
		when = "now"
	}
	s.say(t, fmt.Sprintf("Saved for %s; it applies %s.\n\n%s", trainee, when, s.prefs.lines()))
}

// preferenceEntities are the conversation entities that name a trainee's preference, and the
// preference each one sets.
var preferenceEntities = map[string]string{"handoff_format_preference": "handoff"}

// offerPreferences asks, once per value, before a preference the conversation revealed
// becomes the trainee's default: the trainee says yes by sending the /prefs line it offers.
// merged is the conversation part of an entity delta that was merged.
func (s *Session) offerPreferences(t *turn, merged map[string]any) {
	if s.info.Trainee == "" {
		return
	}
	for _, key := range slices.Sorted(maps.Keys(merged)) {
		pref, ok := preferenceEntities[key]
		if !ok {
			continue
		}
		value := handoffFormat(merged[key])
		if value == "" || value == s.prefs.Handoff || s.offered[pref+"="+value] {
			continue
		}
		s.offered[pref+"="+value] = true
		format := handoffNames[value]
		t.emit(ConfirmEvent{
			Question: fmt.Sprintf("You said you prefer %s handoffs. Make %s the format /handoff drafts from now on?", format, format),
			Line:     CmdPrefs + " " + pref + " " + value,
		})
	}
}

// handoffFormat reads a handoff format from an entity's value ("I-PASS", "ipass format"); ""
// when it names none.
func handoffFormat(v any) string {
	text, _ := v.(string)
	text = strings.ToLower(strings.NewReplacer("-", "", " ", "", "_", "").Replace(text))
	for _, f := range handoffFormats {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}
