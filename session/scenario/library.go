package scenario

import (
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"sort"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

//go:embed shifts/*.yaml
var shiftsFS embed.FS

// Library is the set of scenarios and shifts a session can use. It is
// read-only once loaded and safe to share.
type Library struct {
	scenarios map[string]*Scenario
	ids       []string // sorted
	shifts    map[string]Shift
	shiftIDs  []string // sorted
}

// Load reads the built-in scenarios and then every *.yaml in dirs. A user
// scenario with the id of an earlier one replaces it, so a built-in can be
// copied and edited. Any invalid file fails the load, naming file and line.
func Load(dirs ...string) (*Library, error) {
	l := &Library{scenarios: map[string]*Scenario{}, shifts: map[string]Shift{}}
	errs := l.addScenarios(builtinFS, "builtin", "builtin")
	for _, dir := range dirs {
		errs = append(errs, l.addScenarios(os.DirFS(dir), ".", dir)...)
	}
	for id := range l.scenarios {
		l.ids = append(l.ids, id)
	}
	sort.Strings(l.ids)
	if len(errs) == 0 {
		errs = l.addBuiltinShifts()
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return l, nil
}

func (l *Library) addScenarios(fsys fs.FS, dir, label string) []error {
	files, err := yamlFiles(fsys, dir)
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
		file := label + "/" + path.Base(name)
		s, perrs := Parse(data)
		if len(perrs) > 0 {
			errs = append(errs, inFile(file, perrs)...)
			continue
		}
		if other, dup := fromHere[s.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: scenario id %q is also used by %s", file, s.ID, other))
			continue
		}
		fromHere[s.ID] = file
		s.Source = file
		l.scenarios[s.ID] = s
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

// List returns every scenario, ordered by id.
func (l *Library) List() []*Scenario {
	out := make([]*Scenario, len(l.ids))
	for i, id := range l.ids {
		out[i] = l.scenarios[id]
	}
	return out
}

// Get returns the scenario with id.
func (l *Library) Get(id string) (*Scenario, bool) {
	s, ok := l.scenarios[id]
	return s, ok
}

// PickScenario chooses a scenario for a patient who arrived without one. The
// choice depends only on the id and the library, so replays agree.
func (l *Library) PickScenario(patientID string) *Scenario {
	h := fnv.New64a()
	h.Write([]byte(patientID))
	return l.scenarios[l.ids[h.Sum64()%uint64(len(l.ids))]]
}
