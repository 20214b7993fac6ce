package knowledge

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func TestParseCard(t *testing.T) {
	tests := []struct {
		name, file, text string
		want             Card
		wantErr          string
	}{
		{
			name: "front matter and sections",
			file: "x.md",
			text: "---\nid: x\ntitle: X card\nsource: {body: Body, guideline: Guide, year: 2020}\nscenarios: [s1]\n" +
				"doses:\n  - {drug: naloxone, route: IV, amount: 400, unit: micrograms}\n---\n# Ignored title\n\n## One\nFirst.\n\n## Two\nSecond.\n",
			want: Card{ID: "x", Title: "X card", Source: Source{"Body", "Guide", 2020}, Scenarios: []string{"s1"},
				Doses:    []Dose{{Drug: "naloxone", Route: "IV", Amount: 400, Unit: "micrograms"}},
				Sections: []Section{{"One", "First."}, {"Two", "Second."}}, Origin: "o"},
		},
		{
			name: "no front matter: title from the heading, id from the file name",
			file: "dir/My Local Card.md",
			text: "# Local card\nIntro text.\n## Steps\nDo this.\n",
			want: Card{ID: "my-local-card", Title: "Local card", Sections: []Section{{untitledSection, "Intro text."}, {"Steps", "Do this."}}, Origin: "o"},
		},
		{
			name: "plain text: one section, title from the file name",
			file: "notes.txt",
			text: "Line one.\r\nLine two.\r\n",
			want: Card{ID: "notes", Title: "notes", Sections: []Section{{untitledSection, "Line one.\nLine two."}}, Origin: "o"},
		},
		{
			name:    "front matter at the end of the file",
			file:    "y.md",
			text:    "---\nid: y\n---",
			wantErr: "no text",
		},
		{name: "unknown front matter key", file: "z.md", text: "---\nid: z\ntitel: typo\n---\n## A\nb\n", wantErr: "titel"},
		{name: "unclosed front matter", file: "z.md", text: "---\nid: z\n## A\nb\n", wantErr: "not closed"},
		{name: "bad id", file: "z.md", text: "---\nid: Bad Id\n---\n## A\nb\n", wantErr: "id \"Bad Id\""},
		{name: "empty file", file: "empty.md", text: "", wantErr: "no text"},
		{name: "only headings", file: "h.md", text: "# T\n## A\n## B\n", wantErr: "no text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCard(tt.file, []byte(tt.text), "o")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.file) {
					t.Fatalf("err = %v, want one naming %s and containing %q", err, tt.file, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseCardStripsEscapesAndControlCharacters(t *testing.T) {
	text := "# T\x1b]0;owned\x07itle\n## S\x1b[1mection\nred \x1b[31mtext\x1b[0m, bell\a, C1 \u009b2J, DEL\x7f, tab\tkept.\r\n"
	c, err := parseCard("e.md", []byte(text), "o")
	if err != nil {
		t.Fatal(err)
	}
	want := Card{ID: "e", Title: "Title", Sections: []Section{{"Section", "red text, bell, C1 2J, DEL, tab\tkept."}}, Origin: "o"}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
}

func TestLongSectionsAreSplitAtParagraphs(t *testing.T) {
	para := strings.Repeat("word ", 100)
	text := "## Long\n" + para + "\n\n" + para + "\n\n" + para + "\n"
	c, err := parseCard("l.md", []byte(text), "o")
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, s := range c.Sections {
		heads = append(heads, s.Heading)
		if n := len(strings.Fields(s.Text)); n > maxSectionWords {
			t.Errorf("%s has %d words, more than %d", s.Heading, n, maxSectionWords)
		}
	}
	if want := []string{"Long", "Long (2)"}; !reflect.DeepEqual(heads, want) {
		t.Errorf("headings %v, want %v", heads, want)
	}
}

func TestDoseAmounts(t *testing.T) {
	for _, tt := range []struct {
		d    Dose
		want string
	}{
		{Dose{Amount: 0.5, Unit: "mg"}, "0.5 mg"},
		{Dose{Amount: 150, Max: 200, Unit: "mL"}, "150–200 mL"},
		{Dose{Amount: 1.2, Max: 2, Unit: "g"}, "1.2–2 g"},
	} {
		if got := tt.d.Amounts(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.d, got, tt.want)
		}
	}
}

func FuzzParseCard(f *testing.F) {
	f.Add("---\nid: a\ntitle: A\n---\n## S\ntext\n")
	f.Add("# T\n\x1b[31m## S\nred\x1b[0m\n")
	f.Add("---\n---\n")
	f.Add("plain\r\ntext\u009b")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := parseCard("f.md", []byte(text), "o")
		if err != nil {
			return
		}
		if !validID().MatchString(c.ID) || c.Title == "" || len(c.Sections) == 0 {
			t.Fatalf("accepted an invalid card: %+v", c)
		}
		for _, s := range c.Sections {
			for _, r := range c.Title + s.Heading + s.Text {
				if r != '\n' && r != '\t' && (unicode.IsControl(r) || r == 0x1b) {
					t.Fatalf("control character %U kept in %q", r, s.Text)
				}
			}
			if strings.TrimSpace(s.Text) == "" {
				t.Fatalf("empty section %q", s.Heading)
			}
		}
	})
}

func TestParseCardCleansYAMLEscapesInFrontMatter(t *testing.T) {
	c, err := parseCard("y.md", []byte("---\ntitle: \"A\\e[31mB\\a\"\nsource: {body: \"\\e]52;c;x\\aC\"}\n---\n## S\nt\n"), "o")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{c.Title, c.Source.Body} {
		if strings.ContainsFunc(s, unicode.IsControl) {
			t.Errorf("control characters kept: %q", s)
		}
	}
}
