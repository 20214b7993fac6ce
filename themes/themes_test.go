package themes

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	m.Run()
}

func TestNew(t *testing.T) {
	tests := []struct {
		name     string
		wantName string
		wantDark bool
		wantErr  bool
	}{
		{name: "", wantName: "dark", wantDark: true},
		{name: "dark", wantName: "dark", wantDark: true},
		{name: "light", wantName: "light", wantDark: false},
		{name: "high-contrast", wantName: "high-contrast", wantDark: true},
		{name: "solarized", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := New(tt.name, false)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "dark, light, high-contrast") {
					t.Fatalf("New(%q) error = %v, want one listing the themes", tt.name, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if th.Name != tt.wantName || th.Dark != tt.wantDark {
				t.Errorf("New(%q) = %s dark=%v, want %s dark=%v", tt.name, th.Name, th.Dark, tt.wantName, tt.wantDark)
			}
		})
	}
}

func TestNEWS2BandsLookDifferent(t *testing.T) {
	for _, name := range Names {
		for _, noColor := range []bool{false, true} {
			th, err := New(name, noColor)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]string{}
			bands := map[string]lipgloss.Style{
				"low": th.News2Low, "single-3": th.News2Single3,
				"medium": th.News2Medium, "high": th.News2High,
			}
			for band, s := range bands {
				out := s.Render("7")
				if other, dup := seen[out]; dup && !noColor {
					t.Errorf("%s: bands %s and %s render the same", name, band, other)
				}
				seen[out] = band
			}
		}
	}
}

func TestNoColorHasNoColourSequences(t *testing.T) {
	for _, name := range Names {
		th, err := New(name, true)
		if err != nil {
			t.Fatal(err)
		}
		styles := []lipgloss.Style{th.Text, th.Accent, th.Danger, th.AllergyBadge, th.News2High, th.StatusBar, th.Selected}
		for i, s := range styles {
			out := s.Render("x")
			if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
				t.Errorf("%s: style %d renders colour with NO_COLOR: %q", name, i, out)
			}
		}
		md := renderMarkdown(t, th, "# Title\n\n**bold**, *The patient changes*, ~~gone~~ and `code`\n\n- one")
		if strings.Contains(md, "\x1b") {
			t.Errorf("%s: markdown has escapes with NO_COLOR: %q", name, md)
		}
		for _, markup := range []string{"#", "*", "`", "~~"} {
			if strings.Contains(md, markup) {
				t.Errorf("%s: NO_COLOR markdown shows the markup %q: %q", name, markup, md)
			}
		}
		if !strings.Contains(md, "The patient changes") || !strings.Contains(md, "• one") {
			t.Errorf("%s: NO_COLOR markdown lost its text: %q", name, md)
		}
	}
}

func TestMarkdownUsesPaletteAndLeavesGlamourDefaults(t *testing.T) {
	for _, name := range Names {
		th, err := New(name, false)
		if err != nil {
			t.Fatal(err)
		}
		out := renderMarkdown(t, th, "hello")
		if strings.HasPrefix(out, "\n") || strings.HasPrefix(out, "  ") {
			t.Errorf("%s: markdown keeps glamour's document margin: %q", name, out)
		}
		textSGR, _, _ := strings.Cut(th.Text.Render("x"), "x")
		if !strings.Contains(out, textSGR) {
			t.Errorf("%s: markdown text is not drawn in the theme's fg %q: %q", name, textSGR, out)
		}
	}
	if *styles.DarkStyleConfig.Document.Margin != 2 || *styles.LightStyleConfig.Document.Margin != 2 {
		t.Fatal("New modified glamour's package-level styles")
	}
}

// renderMarkdown renders md in th as a terminal of true colour would, or one of none.
func renderMarkdown(t *testing.T, th Theme, md string) string {
	t.Helper()
	profile := termenv.TrueColor
	if th.NoColor {
		profile = termenv.Ascii
	}
	return renderMarkdownIn(t, th, profile, md)
}

// The light theme paints its own background and text colour, so it reads the same on a light
// or a dark terminal; the dark themes keep the terminal's background.
func TestOnlyTheLightThemePaintsTheScreen(t *testing.T) {
	for _, name := range Names {
		th, err := New(name, false)
		if err != nil {
			t.Fatal(err)
		}
		painted := strings.Contains(th.Screen.Render("x"), "48;2;255;255;255")
		if painted != (name == "light") {
			t.Errorf("%s: screen painted white = %v", name, painted)
		}
		plain, _ := New(name, true)
		if out := plain.Screen.Render("x"); out != "x" {
			t.Errorf("%s with NO_COLOR paints the screen: %q", name, out)
		}
	}
}

// A theme converted once to a terminal's colours draws every style, and its markdown, in the
// very sequences lipgloss and glamour write for the hex theme on that terminal; and its colours
// are no longer hex, so nothing converts them again at each render.
func TestInDrawsWhatTheHexThemeDraws(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.TrueColor)
	const md = "# Heading\n\nIt is **hard** to *breathe*: `SpO2 90%`.\n\n> quoted\n\n- [a link](https://example.org)"
	for _, profile := range []termenv.Profile{termenv.ANSI256, termenv.ANSI} {
		lipgloss.SetColorProfile(profile)
		for _, name := range Names {
			hex, err := New(name, false)
			if err != nil {
				t.Fatal(err)
			}
			in := hex.In(profile)
			if fg, _ := in.Text.GetForeground().(lipgloss.Color); strings.HasPrefix(string(fg), "#") || fg == "" {
				t.Errorf("%s in profile %d: the text's colour is %q, not a terminal colour's number", name, profile, fg)
			}
			hv, iv := reflect.ValueOf(hex), reflect.ValueOf(in)
			for i := range hv.NumField() {
				h, ok := hv.Field(i).Interface().(lipgloss.Style)
				if !ok {
					continue
				}
				field := hv.Type().Field(i).Name
				if want, got := h.Render("x"), iv.Field(i).Interface().(lipgloss.Style).Render("x"); got != want {
					t.Errorf("%s in profile %d: %s draws %q, the hex theme %q", name, profile, field, got, want)
				}
			}
			if want, got := renderMarkdownIn(t, hex, profile, md), renderMarkdownIn(t, in, profile, md); got != want {
				t.Errorf("%s in profile %d: markdown draws %q, the hex theme %q", name, profile, got, want)
			}
		}
	}
}

func renderMarkdownIn(t *testing.T, th Theme, profile termenv.Profile, md string) string {
	t.Helper()
	r, err := glamour.NewTermRenderer(glamour.WithStyles(th.Markdown), glamour.WithWordWrap(60), glamour.WithColorProfile(profile))
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(md)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
