package knowledge

import (
	"crypto/sha256"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

//go:embed cards/*.md
var builtinCards embed.FS

// BuiltinOrigin is the Origin of the cards compiled into ward.
const BuiltinOrigin = "built-in"

// maxUserFileBytes bounds one user file; a protocol card is a few kilobytes.
const maxUserFileBytes = 1 << 20

// userExtensions are the files read from a --knowledge directory.
var userExtensions = []string{".md", ".markdown", ".txt"}

// Library is the set of cards ward knows: the built-in ones, then the user's.
type Library struct {
	Cards    []Card
	Problems []error // user files that were skipped, each saying why
}

// Builtin parses the cards compiled into ward.
func Builtin() ([]Card, error) {
	entries, err := fs.ReadDir(builtinCards, "cards")
	if err != nil {
		return nil, err
	}
	var cards []Card
	for _, e := range entries {
		name := path.Join("cards", e.Name())
		data, err := builtinCards.ReadFile(name)
		if err != nil {
			return nil, err
		}
		c, err := parseCard(e.Name(), data, BuiltinOrigin)
		if err != nil {
			return nil, fmt.Errorf("built-in card %w", err)
		}
		cards = append(cards, c)
	}
	return cards, nil
}

// Load returns the built-in cards and, when dir is not empty, the user's markdown and text
// files under it (--knowledge DIR). A user file that cannot be read or parsed, or whose id is
// taken, is skipped and listed in Problems; the error is only for a directory that cannot be
// read at all.
func Load(dir string) (Library, error) {
	cards, err := Builtin()
	if err != nil {
		return Library{}, err
	}
	lib := Library{Cards: cards}
	if dir == "" {
		return lib, nil
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return Library{}, fmt.Errorf("knowledge directory %s: not a readable directory (pass --knowledge a folder of .md or .txt files)", dir)
	}
	ids := map[string]string{}
	for _, c := range lib.Cards {
		ids[c.ID] = c.Origin
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			lib.Problems = append(lib.Problems, err)
			return nil
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") || !slices.Contains(userExtensions, strings.ToLower(filepath.Ext(p))) {
			return nil
		}
		c, err := readUserCard(p)
		if err == nil && ids[c.ID] != "" {
			err = fmt.Errorf("%s: id %q is already used by %s; set another id: in its front matter", p, c.ID, ids[c.ID])
		}
		if err != nil {
			lib.Problems = append(lib.Problems, err)
			return nil
		}
		ids[c.ID] = p
		lib.Cards = append(lib.Cards, c)
		return nil
	})
	return lib, err
}

func readUserCard(p string) (Card, error) {
	info, err := os.Stat(p)
	if err != nil {
		return Card{}, err
	}
	if info.Size() > maxUserFileBytes {
		return Card{}, fmt.Errorf("%s: larger than %d KiB; split it into several cards", p, maxUserFileBytes>>10)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return Card{}, err
	}
	return parseCard(p, data, p)
}

// Card returns the card with the given id.
func (l Library) Card(id string) (Card, bool) {
	for _, c := range l.Cards {
		if c.ID == id {
			return c, true
		}
	}
	return Card{}, false
}

// chunk is one retrievable unit: a section of a card.
type chunk struct {
	card    int // index in Library.Cards
	section int // index in the card's Sections
	hash    [32]byte
}

// embedText is what a chunk is embedded and indexed as: the card's title and the section's
// heading give the words that a section's own text leaves implicit.
func embedText(c Card, s Section) string {
	return c.Title + "\n" + s.Heading + "\n" + s.Text
}

// chunks lists every section of every card, each with the hash of its embedded text.
func (l Library) chunks() []chunk {
	var out []chunk
	for ci, c := range l.Cards {
		for si, s := range c.Sections {
			out = append(out, chunk{card: ci, section: si, hash: sha256.Sum256([]byte(embedText(c, s)))})
		}
	}
	return out
}

// fingerprint changes whenever anything a passage shows changes: a chunk's text, the set of
// chunks, or a card's id, source or origin.
func (l Library) fingerprint(chunks []chunk) [32]byte {
	h := sha256.New()
	for _, c := range l.Cards {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", c.ID, c.Source, c.Origin)
	}
	for _, c := range chunks {
		h.Write(c.hash[:])
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
