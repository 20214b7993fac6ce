package scenario

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Error is one problem in a scenario or shift file, at a 1-based line
// (0 when the problem is the whole document).
type Error struct {
	Line int
	Msg  string
}

func (e Error) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Validate checks a scenario file and returns every problem found, each with
// its line: YAML syntax, unknown or missing fields, wrong types, and
// references that do not resolve (states, drugs, classes, vitals…).
func Validate(data []byte) []error {
	_, errs := Parse(data)
	return errs
}

// Parse decodes and validates a scenario. On success the scenario is ready
// for the engine; otherwise it returns the errors sorted by line.
func Parse(data []byte) (*Scenario, []error) { return parse(data, true) }

// parse is Parse, checking the scenario's doses against the formulary when doses is set. The
// library's built-ins are checked by its tests; at run time their parse skips that check, the
// dearest part of start-up.
func parse(data []byte, doses bool) (*Scenario, []error) {
	s, errs := parseAll(data, doses)
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// ParseAll is Parse for a checker that wants every problem in one run: beside the errors it
// returns the scenario whenever its states hang together (see wired), so the checks that play
// the case still run on a file with an unknown drug or a missing finding. A scenario with
// errors is for checking, never for a shift.
func ParseAll(data []byte) (*Scenario, []error) { return parseAll(data, true) }

func parseAll(data []byte, doses bool) (*Scenario, []error) {
	var s Scenario
	c, ok := decode(data, &s)
	if !ok {
		return nil, c.sorted()
	}
	c.checkScenario(&s)
	if doses {
		c.checkDoses(&s)
	}
	errs := c.sorted()
	if len(errs) > 0 && !s.wired() {
		return nil, errs
	}
	s.compile()
	s.lines = c.lines
	return &s, errs
}

// wired reports whether every state the scenario names exists (the initial state, each
// transition's and course's, the arrest's return of circulation): all compile needs.
func (s *Scenario) wired() bool {
	has := func(name string) bool { st, ok := s.States[name]; return ok && st != nil }
	if !has(s.InitialState) {
		return false
	}
	for _, st := range s.States {
		if st == nil || (st.Course != nil && !has(st.Course.To)) {
			return false
		}
	}
	for _, t := range s.Transitions {
		if !has(t.To) {
			return false
		}
		for _, f := range t.From {
			if !has(f) {
				return false
			}
		}
	}
	return s.Arrest == nil || s.Arrest.ROSC == "" || has(s.Arrest.ROSC)
}

// checker collects errors and remembers the line of every YAML path it saw,
// so semantic checks on decoded values can point at the right line.
type checker struct {
	errs  []Error
	lines map[string]int
}

// decode walks the YAML tree for unknown and missing fields, then decodes it
// into out. ok is false when the document could not be decoded at all.
func decode(data []byte, out any) (c *checker, ok bool) {
	c = &checker{lines: map[string]int{}}
	if !c.plainFile(data) {
		return c, false
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		c.addYAML(err)
		return c, false
	}
	// "---" alone is a document holding one null, which yaml.v3 places on the line after it.
	if len(root.Content) == 0 || root.Content[0].ShortTag() == "!!null" {
		c.errs = append(c.errs, Error{Msg: "empty document"})
		return c, false
	}
	doc := root.Content[0]
	c.plainText(doc)
	c.walk(doc, reflect.TypeOf(out).Elem(), "")
	if err := doc.Decode(out); err != nil {
		c.addYAML(err)
		return c, false
	}
	return c, true
}

// plainText reports every key and value that holds a control character: the text of a
// scenario reaches the terminal, which would act on such a character instead of printing it
// (clear the screen, set the clipboard, open a link...). Escapes in quoted YAML strings ("\e",
// "\x9b") are how such characters get in.
func (c *checker) plainText(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		for _, r := range n.Value {
			if isControl(r) && r != '\n' {
				c.controlChar(n.Line, r)
				break
			}
		}
	}
	for _, child := range n.Content {
		c.plainText(child)
	}
}

// plainFile reports the first character in the file itself that yaml.v3 would refuse without
// saying where (invalid UTF-8, which includes UTF-16's byte order marks, and control
// characters), or would count as a line break where an editor does not (U+2028, U+2029), so
// that every line this package reports is the line an editor shows. Line breaks are \n, \r\n
// and a lone \r, as in YAML.
func (c *checker) plainFile(data []byte) bool {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			c.add(line, "the file is not valid UTF-8 here (byte %#x); save it as UTF-8", data[i])
			return false
		case r == '\n', r == '\r' && (i+1 == len(data) || data[i+1] != '\n'):
			line++
		case r == 0x2028 || r == 0x2029:
			c.add(line, "text holds %U, which YAML reads as a line break: use a newline", r)
			return false
		case r != '\r' && isControl(r):
			c.controlChar(line, r)
			return false
		}
		i += size
	}
	return true
}

// isControl is true for the C0 controls but tab (ESC, which starts every terminal escape
// sequence, among them), DEL and the C1 controls U+0080–U+009F.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f)
}

func (c *checker) controlChar(line int, r rune) {
	c.add(line, "text holds the control character %U, which a terminal would act on instead of printing", r)
}

func (c *checker) add(line int, format string, args ...any) {
	c.errs = append(c.errs, Error{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// at reports a problem with the value at path (or its nearest parent).
func (c *checker) at(path, format string, args ...any) {
	for {
		if line, ok := c.lines[path]; ok {
			c.add(line, format, args...)
			return
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			c.add(c.lines[""], format, args...)
			return
		}
		path = path[:i]
	}
}

var lineRe = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// addYAML splits a yaml.v3 error into line-numbered entries.
func (c *checker) addYAML(err error) {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	for _, m := range msgs {
		if g := lineRe.FindStringSubmatch(m); g != nil {
			n, _ := strconv.Atoi(g[1])
			c.add(n, "%s", g[2])
		} else {
			c.add(0, "%s", strings.TrimPrefix(m, "yaml: "))
		}
	}
}

func (c *checker) sorted() []error {
	sort.SliceStable(c.errs, func(i, j int) bool {
		if c.errs[i].Line != c.errs[j].Line {
			return c.errs[i].Line < c.errs[j].Line
		}
		return c.errs[i].Msg < c.errs[j].Msg
	})
	out := make([]error, len(c.errs))
	for i, e := range c.errs {
		out[i] = e
	}
	return out
}

// walk compares the YAML tree with the Go type it will decode into: every
// mapping key must be a known field, and required fields must be present.
func (c *checker) walk(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	c.lines[path] = n.Line
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				c.add(k.Line, "unknown field %q in %s", k.Value, describe(path))
				continue
			}
			seen[k.Value] = true
			c.walk(v, f.Type, join(path, k.Value))
		}
		for name, f := range fields {
			if f.Tag.Get("required") == "true" && !seen[name] {
				c.add(n.Line, "missing required field %q in %s", name, describe(path))
			}
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			c.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			c.walk(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
		}
	}
}

// yamlFieldsOf holds yamlFields' answer for each struct type: a library's cases walk the same few
// types thousands of times.
var yamlFieldsOf sync.Map // reflect.Type → map[string]reflect.StructField

func yamlFields(t reflect.Type) map[string]reflect.StructField {
	if fields, ok := yamlFieldsOf.Load(t); ok {
		return fields.(map[string]reflect.StructField)
	}
	fields := map[string]reflect.StructField{}
	defer yamlFieldsOf.Store(t, fields)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.IsExported() && name != "" && name != "-" {
			fields[name] = f
		}
	}
	return fields
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}
