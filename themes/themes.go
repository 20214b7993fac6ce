// Package themes holds ward's look: one Theme of lipgloss styles per
// colour scheme, each built from a handful of semantic colours, plus the
// matching glamour markdown style.
package themes

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Names lists the themes New accepts; the first is the default.
var Names = []string{"dark", "light", "high-contrast"}

// Palette is the small set of semantic colours every style derives from.
// Colours are hex strings so one palette serves lipgloss and glamour.
type Palette struct {
	Fg      string // body text
	Muted   string // secondary text, borders
	Accent  string // focus, headings, the active patient
	OK      string // normal, low risk
	Warn    string // needs attention
	Danger  string // act now; allergies
	Surface string // bars and badges drawn on the terminal background
	OnColor string // text drawn on a Warn or Danger background
	// Screen is the background the whole screen is painted with, or "" to keep the terminal's.
	// The light theme paints its own, so it reads the same on a light or a dark terminal.
	Screen string
}

var palettes = map[string]Palette{
	"dark": {
		Fg: "#DCDFE4", Muted: "#7F8494", Accent: "#7AA2F7", OK: "#73C991",
		Warn: "#E5C07B", Danger: "#F7768E", Surface: "#2A2E3B", OnColor: "#16181F",
	},
	"light": {
		Fg: "#1F2328", Muted: "#6E7781", Accent: "#0550AE", OK: "#1A7F37",
		Warn: "#9A6700", Danger: "#CF222E", Surface: "#E6EAEF", OnColor: "#FFFFFF", Screen: "#FFFFFF",
	},
	"high-contrast": {
		Fg: "#FFFFFF", Muted: "#C8C8C8", Accent: "#00E5FF", OK: "#00FF66",
		Warn: "#FFE500", Danger: "#FF4040", Surface: "#000000", OnColor: "#000000",
	},
}

// Theme is every style the UI draws with. Panes never invent colours;
// they pick a field here, so a theme change restyles everything.
type Theme struct {
	Name    string
	Dark    bool // the palette is meant for a dark terminal background
	NoColor bool

	Text, Muted, Accent, OK, Warn, Danger lipgloss.Style
	Title                                 lipgloss.Style // pane titles and the patient ID

	AllergyBadge, NoAllergyBadge lipgloss.Style

	// NEWS2 bands (RCP 2017): aggregate 0–4, a single parameter scoring 3,
	// 5–6, and 7 or more.
	News2Low, News2Single3, News2Medium, News2High lipgloss.Style

	RosterActive, RosterItem, RosterAlert lipgloss.Style

	UserLabel, AgentLabel, SystemText lipgloss.Style
	NewMessages                       lipgloss.Style // the "new messages ↓" marker

	StatusBar, StatusKey, StatusDesc lipgloss.Style

	Dialog, Selected lipgloss.Style
	Spark            lipgloss.Style

	// Match marks a search match in the chat; MatchCurrent the one the search is on.
	Match, MatchCurrent lipgloss.Style

	// Screen paints the whole screen (its foreground and background) when the palette sets one;
	// it is the zero style otherwise.
	Screen lipgloss.Style

	Markdown ansi.StyleConfig
}

// NoColorRequested reports whether the user asked for no colour
// (https://no-color.org: NO_COLOR set and not empty).
func NoColorRequested() bool {
	return os.Getenv("NO_COLOR") != ""
}

// New builds the named theme. With noColor every style keeps its layout
// and emphasis but drops colour, and markdown is rendered as plain text.
func New(name string, noColor bool) (Theme, error) {
	if name == "" {
		name = Names[0]
	}
	p, ok := palettes[name]
	if !ok {
		return Theme{}, fmt.Errorf("unknown theme %q — use %s", name, strings.Join(Names, ", "))
	}
	return build(name, p, noColor), nil
}

// In is the theme with every colour converted once, now, to what a terminal of profile shows,
// the very colours lipgloss would convert it to. A style with a hex colour converts it again at
// each render, through HSLuv distances to the 256 colours: ward serve, which draws in 256
// colours for every client, spent a sixth of its CPU on that.
func (t Theme) In(profile termenv.Profile) Theme {
	p, ok := palettes[t.Name]
	if !ok || t.NoColor || profile == termenv.TrueColor {
		return t
	}
	for _, c := range []*string{&p.Fg, &p.Muted, &p.Accent, &p.OK, &p.Warn, &p.Danger, &p.Surface, &p.OnColor, &p.Screen} {
		*c = colourIn(profile, *c)
	}
	return build(t.Name, p, false)
}

// colourIn is hex as profile shows it, as the number of a terminal colour; "" stays "".
func colourIn(profile termenv.Profile, hex string) string {
	switch c := profile.Color(hex).(type) {
	case termenv.ANSI256Color:
		return strconv.Itoa(int(c))
	case termenv.ANSIColor:
		return strconv.Itoa(int(c))
	}
	return hex
}

// build makes the named theme's styles from its palette p.
func build(name string, p Palette, noColor bool) Theme {
	c := colorizer{noColor: noColor}
	t := Theme{Name: name, Dark: name != "light", NoColor: noColor}

	t.Text = c.fg(p.Fg)
	t.Muted = c.fg(p.Muted)
	t.Accent = c.fg(p.Accent)
	t.OK = c.fg(p.OK)
	t.Warn = c.fg(p.Warn)
	t.Danger = c.fg(p.Danger).Bold(true)
	t.Title = c.fg(p.Accent).Bold(true)

	t.AllergyBadge = c.badge(p.Danger, p.OnColor).Bold(true)
	t.NoAllergyBadge = c.fg(p.Muted)

	t.News2Low = c.fg(p.OK)
	t.News2Single3 = c.fg(p.Warn).Bold(true)
	t.News2Medium = c.badge(p.Warn, p.OnColor).Bold(true)
	t.News2High = c.badge(p.Danger, p.OnColor).Bold(true)

	t.RosterActive = c.fg(p.Accent).Bold(true)
	t.RosterItem = c.fg(p.Fg)
	t.RosterAlert = c.fg(p.Danger).Bold(true)

	t.UserLabel = c.fg(p.OK).Bold(true)
	t.AgentLabel = c.fg(p.Accent).Bold(true)
	t.SystemText = c.fg(p.Muted).Italic(true)
	t.NewMessages = c.badge(p.Accent, p.OnColor).Bold(true)

	t.StatusBar = c.bg(p.Surface).Foreground(c.color(p.Fg))
	t.StatusKey = c.bg(p.Surface).Foreground(c.color(p.Accent)).Bold(true)
	t.StatusDesc = c.bg(p.Surface).Foreground(c.color(p.Muted))

	border := lipgloss.RoundedBorder()
	if name == "high-contrast" {
		border = lipgloss.ThickBorder()
	}
	t.Dialog = c.border(lipgloss.NewStyle().Border(border).Padding(0, 1), p.Accent)
	t.Selected = c.bg(p.Accent).Foreground(c.color(p.OnColor))
	if noColor {
		t.Selected = lipgloss.NewStyle().Reverse(true)
		t.News2Medium = t.News2Medium.Reverse(true)
		t.News2High = t.News2High.Reverse(true)
		t.AllergyBadge = t.AllergyBadge.Reverse(true)
	}
	t.Spark = c.fg(p.Accent)
	t.Match = c.bg(p.Warn).Foreground(c.color(p.OnColor))
	t.MatchCurrent = c.bg(p.Accent).Foreground(c.color(p.OnColor)).Bold(true)
	if noColor {
		t.Match = lipgloss.NewStyle().Underline(true)
		t.MatchCurrent = lipgloss.NewStyle().Reverse(true)
	}
	if p.Screen != "" && !noColor {
		t.Screen = c.bg(p.Screen).Foreground(c.color(p.Fg))
	}

	t.Markdown = markdownStyle(name, p, noColor)
	return t
}

// Use installs the theme's assumptions into lipgloss's default renderer so
// that nothing ever queries the terminal for its background at startup.
func Use(t Theme) {
	lipgloss.SetHasDarkBackground(t.Dark)
	if t.NoColor {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
}

// colorizer applies colours unless colour is switched off, so New reads as
// one list of intentions rather than a list of if-statements.
type colorizer struct{ noColor bool }

func (c colorizer) color(hex string) lipgloss.TerminalColor {
	if c.noColor {
		return lipgloss.NoColor{}
	}
	return lipgloss.Color(hex)
}

func (c colorizer) fg(hex string) lipgloss.Style {
	return lipgloss.NewStyle().Foreground(c.color(hex))
}

func (c colorizer) bg(hex string) lipgloss.Style {
	return lipgloss.NewStyle().Background(c.color(hex))
}

func (c colorizer) badge(bg, fg string) lipgloss.Style {
	return lipgloss.NewStyle().Background(c.color(bg)).Foreground(c.color(fg)).Padding(0, 1)
}

func (c colorizer) border(s lipgloss.Style, hex string) lipgloss.Style {
	return s.BorderForeground(c.color(hex))
}
