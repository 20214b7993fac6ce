package themes

import (
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
)

// markdownStyle derives the glamour style from glamour's own dark or light
// style, recoloured with the palette. The document margin and the blank
// lines around it are dropped because the chat pane lays messages out
// itself. glamour's styles hold pointers, so every change below replaces a
// pointer and never writes through one: the package-level configs stay
// untouched.
func markdownStyle(name string, p Palette, noColor bool) ansi.StyleConfig {
	if noColor {
		return plainStyle()
	}
	s := styles.DarkStyleConfig
	if name == "light" {
		s = styles.LightStyleConfig
	}

	s.Document = ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{Color: &p.Fg},
		Margin:         uintPtr(0),
	}
	s.BlockQuote.Color = &p.Muted
	s.BlockQuote.IndentToken = stringPtr("│ ")
	s.Heading.Color = &p.Accent
	s.Heading.Bold = boolPtr(true)
	s.H1.Color = &p.OnColor
	s.H1.BackgroundColor = &p.Accent
	s.H6.Color = &p.Muted
	s.HorizontalRule.Color = &p.Muted
	s.Link.Color = &p.Accent
	s.LinkText.Color = &p.Accent
	s.Code.Color = &p.Warn
	s.Code.BackgroundColor = &p.Surface
	s.Strong.Bold = boolPtr(true)
	if name == "high-contrast" {
		s.Emph.Bold = boolPtr(true)
		s.Link.Underline = boolPtr(true)
	}
	return s
}

func uintPtr(u uint) *uint       { return &u }
func stringPtr(s string) *string { return &s }
func boolPtr(b bool) *bool       { return &b }

// plainStyle renders markdown as plain text: glamour's ASCII style keeps the markup characters
// (*emphasis*, **strong**, `code`, # headings), which read as noise without colour, so they go.
// Lists keep their bullets and tables their rules: those are layout, not markup.
func plainStyle() ansi.StyleConfig {
	s := styles.ASCIIStyleConfig
	s.Document = ansi.StyleBlock{Margin: uintPtr(0)}
	s.Emph = ansi.StylePrimitive{}
	s.Strong = ansi.StylePrimitive{}
	s.Strikethrough = ansi.StylePrimitive{}
	s.Code = ansi.StyleBlock{}
	for _, h := range []*ansi.StyleBlock{&s.H1, &s.H2, &s.H3, &s.H4, &s.H5, &s.H6} {
		*h = ansi.StyleBlock{}
	}
	return s
}
