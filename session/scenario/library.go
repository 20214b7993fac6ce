package scenario

import (
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

//go:embed shifts/*.yaml
var shiftsFS embed.FS

//go:embed builtin/*.review.md
var reviewsFS embed.FS

// Library is the set of scenarios and shifts a session can use. It is read-only once loaded and
// safe to share. A built-in scenario is parsed when first used, so start-up does not pay for
// scenarios the shift never meets; their files are named by their ids.
type Library struct {
	entries map[string]*entry
	ids     []string // sorted

	shiftsOnce sync.Once
	shifts     map[string]Shift
	shiftIDs   []string // sorted
	shiftErrs  []error
}

// entry is one scenario of the library, parsed on first use.
type entry struct {
	file    string // as errors name it: builtin/x.yaml or DIR/x.yaml
	data    []byte
	builtin bool // checked against the formulary by the tests, not at run time
	once    sync.Once
	s       *Scenario
	errs    []error
}

func (e *entry) scenario() (*Scenario, []error) {
	e.once.Do(func() {
		if e.s, e.errs = parse(e.data, !e.builtin); len(e.errs) > 0 {
			e.s, e.errs = nil, inFile(e.file, e.errs)
			return
		}
		e.s.Source = e.file
	})
	return e.s, e.errs
}

// Load lists the built-in scenarios and reads every *.yaml in dirs. A user scenario with the id
// of an earlier one replaces it, so a built-in can be copied and edited. Any invalid user file
// fails the load, naming file and line.
func Load(dirs ...string) (*Library, error) {
	l := &Library{entries: map[string]*entry{}}
	errs := l.addBuiltins()
	for _, dir := range dirs {
		errs = append(errs, l.addScenarios(os.DirFS(dir), dir)...)
	}
	for id := range l.entries {
		l.ids = append(l.ids, id)
	}
	sort.Strings(l.ids)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return l, nil
}

// addBuiltins lists the embedded scenarios by file name, unparsed.
func (l *Library) addBuiltins() []error {
	files, err := yamlFiles(builtinFS, "builtin")
	if err != nil {
		return []error{fmt.Errorf("builtin: %w", err)}
	}
	for _, name := range files {
		data, err := fs.ReadFile(builtinFS, name)
		if err != nil {
			return []error{err}
		}
		id := strings.TrimSuffix(path.Base(name), path.Ext(name))
		l.entries[id] = &entry{file: "builtin/" + path.Base(name), data: data, builtin: true}
	}
	return nil
}

// addScenarios parses a user directory's scenarios now, so a broken file is reported at start.
func (l *Library) addScenarios(fsys fs.FS, label string) []error {
	files, err := yamlFiles(fsys, ".")
	if err != nil {
		return []error{fmt.Errorf("%s: %w", label, err)}
	}
	var errs []error
	fromHere := map[string]string{}
	for _, name := range files {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e := &entry{file: label + "/" + path.Base(name), data: data}
		s, perrs := e.scenario()
		if len(perrs) > 0 {
			errs = append(errs, perrs...)
			continue
		}
		if other, dup := fromHere[s.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: scenario id %q is also used by %s", e.file, s.ID, other))
			continue
		}
		fromHere[s.ID] = e.file
		l.entries[s.ID] = e
	}
	return errs
}

func yamlFiles(fsys fs.FS, dir string) ([]string, error) {
	a, err := fs.Glob(fsys, dir+"/*.yaml")
	if err != nil {
		return nil, err
	}
	b, err := fs.Glob(fsys, dir+"/*.yml")
	files := append(a, b...)
	sort.Strings(files)
	return files, err
}

// inFile prefixes line errors with their file: "dir/x.yaml:12: message".
func inFile(file string, errs []error) []error {
	out := make([]error, len(errs))
	for i, err := range errs {
		var e Error
		if errors.As(err, &e) && e.Line > 0 {
			out[i] = fmt.Errorf("%s:%d: %s", file, e.Line, e.Msg)
		} else {
			out[i] = fmt.Errorf("%s: %w", file, err)
		}
	}
	return out
}

// List returns every scenario, ordered by id, parsing those not parsed yet. A built-in that does
// not parse is left out; the library's tests keep that from happening.
func (l *Library) List() []*Scenario {
	l.readAll()
	out := make([]*Scenario, 0, len(l.ids))
	for _, id := range l.ids {
		if s, ok := l.Get(id); ok {
			out = append(out, s)
		}
	}
	return out
}

// readAll parses the cases not yet read, one goroutine a core: a list (the start dialog's offer
// of a next shift reads every case) waits for the slowest core, not for every case in turn.
func (l *Library) readAll() { l.read(l.ids) }

// Prepare parses the cases ids name in the background, one goroutine a core, for a reader that
// needs them later and has other work meanwhile: `ward dump` prints every history before the
// engines it summarises. Get waits for a case being parsed; an id not in the library is skipped.
func (l *Library) Prepare(ids []string) { go l.read(ids) }

// read parses the cases ids name, one goroutine a core, and returns when all are parsed.
func (l *Library) read(ids []string) {
	work := make(chan *entry)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for e := range work {
				e.scenario()
			}
		})
	}
	for _, id := range ids {
		if e, ok := l.entries[id]; ok {
			work <- e
		}
	}
	close(work)
	wg.Wait()
}

// Get returns the scenario with id, parsing it on first use.
func (l *Library) Get(id string) (*Scenario, bool) {
	e, ok := l.entries[id]
	if !ok {
		return nil, false
	}
	s, errs := e.scenario()
	if len(errs) > 0 || s.ID != id {
		return nil, false
	}
	return s, true
}

// Check parses every scenario with every check, the formulary's included, and reports what does
// not parse or names another id than its file.
func (l *Library) Check() error {
	var errs []error
	for _, id := range l.ids {
		e := l.entries[id]
		s, perrs := Parse(e.data)
		errs = append(errs, inFile(e.file, perrs)...)
		if s != nil && s.ID != id {
			errs = append(errs, fmt.Errorf("%s: id %q does not match the file name", l.entries[id].file, s.ID))
		}
	}
	return errors.Join(errs...)
}

// PickScenario chooses a scenario for a patient who arrived without one, among those no patient
// of the shift has (used). The choice depends only on the id, the library and used, so replays
// agree. A cardiac arrest is never picked: a shift or the trainee admits one on purpose.
func (l *Library) PickScenario(patientID string, used map[string]bool) (*Scenario, error) {
	var free []string
	for _, id := range l.ids {
		if s, ok := l.Get(id); ok && !used[id] && !slices.Contains(s.Tags, TagCardiacArrest) {
			free = append(free, id)
		}
	}
	if len(free) == 0 {
		return nil, fmt.Errorf("every scenario of the library's %d that a patient can be given unasked is on the roster already", len(l.ids))
	}
	h := fnv.New64a()
	h.Write([]byte(patientID))
	s, _ := l.Get(free[h.Sum64()%uint64(len(free))])
	return s, nil
}

// Source is a scenario's file as written, comments included, and its review beside it when the
// library has one (a built-in always does).
func (l *Library) Source(id string) (yaml, review []byte, ok bool) {
	e, ok := l.entries[id]
	if !ok {
		return nil, nil, false
	}
	if e.builtin {
		review, _ = fs.ReadFile(reviewsFS, "builtin/"+id+".review.md")
	} else {
		review, _ = os.ReadFile(strings.TrimSuffix(strings.TrimSuffix(e.file, ".yaml"), ".yml") + ".review.md")
	}
	return e.data, review, true
}

// TagCardiacArrest marks a scenario that is a cardiac arrest from the start or within a minute.
const TagCardiacArrest = "cardiac-arrest"
