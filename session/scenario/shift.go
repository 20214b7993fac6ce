package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Shift is a roster to start a session with: the patients it names, and a mix drawn from the
// library when the shift starts.
type Shift struct {
	ID       string         `yaml:"id" required:"true"`
	Title    string         `yaml:"title" required:"true"`
	Patients []ShiftPatient `yaml:"patients"`
	Mix      *Mix           `yaml:"mix"`
}

// ShiftPatient places one patient: its id, scenario and bed (the scenario's
// default bed when empty).
type ShiftPatient struct {
	ID       string `yaml:"id" required:"true"`
	Scenario string `yaml:"scenario" required:"true"`
	Bed      string `yaml:"bed"`
}

// Mix asks for Count more patients drawn from the library: scenarios with any of Tags (taken in
// turn, so a mix of two tags has both), of Difficulty if given, none already on the roster.
type Mix struct {
	Count      int      `yaml:"count" required:"true"`
	Tags       []string `yaml:"tags"`
	Difficulty string   `yaml:"difficulty"`
}

// ParseShift decodes and validates a shift against the library.
func (l *Library) ParseShift(data []byte) (Shift, []error) {
	var sh Shift
	c, ok := decode(data, &sh)
	if ok {
		c.checkShift(l, &sh)
	}
	if errs := c.sorted(); len(errs) > 0 {
		return Shift{}, errs
	}
	taken := map[string]bool{}
	for i, p := range sh.Patients {
		if p.Bed == "" {
			sc, _ := l.Get(p.Scenario) // checkShift made sure it exists
			sh.Patients[i].Bed = FreeBed(sc.Demographics.Bed, taken)
		}
		taken[sh.Patients[i].Bed] = true
	}
	return sh, nil
}

func (c *checker) checkShift(l *Library, sh *Shift) {
	if sh.ID != "" && !idRe.MatchString(sh.ID) {
		c.at("id", "id %q must be lowercase letters, digits, - or _", sh.ID)
	}
	if len(sh.Patients) == 0 && sh.Mix == nil {
		c.at("patients", "a shift needs at least one patient, or a mix")
	}
	seen, cases, beds := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i, p := range sh.Patients {
		path := fmt.Sprintf("patients[%d]", i)
		if seen[p.ID] {
			c.at(path+".id", "duplicate patient id %q", p.ID)
		}
		seen[p.ID] = true
		if cases[p.Scenario] {
			c.at(path+".scenario", "scenario %q is already on this shift: two patients never share a case", p.Scenario)
		}
		cases[p.Scenario] = true
		if p.Bed != "" && beds[p.Bed] {
			c.at(path+".bed", "bed %q is already taken on this shift", p.Bed)
		}
		beds[p.Bed] = true
		if _, ok := l.Get(p.Scenario); p.Scenario == "" {
			c.at(path+".scenario", "a patient needs a scenario; a mix draws patients without naming one")
		} else if !ok {
			c.at(path+".scenario", "unknown scenario %q", p.Scenario)
		}
	}
	if m := sh.Mix; m != nil {
		c.checkMix(l, m)
	}
}

// checkMix makes a mix one the library can fill.
func (c *checker) checkMix(l *Library, m *Mix) {
	if m.Count < 1 {
		c.at("mix.count", "a mix needs a count of at least 1")
	}
	if m.Difficulty != "" && !slices.Contains(Difficulties, m.Difficulty) {
		c.at("mix.difficulty", "difficulty %q must be one of %s", m.Difficulty, strings.Join(Difficulties, ", "))
	}
	for i, tag := range m.Tags {
		if len(l.matching([]string{tag}, m.Difficulty)) == 0 {
			c.at(fmt.Sprintf("mix.tags[%d]", i), "no scenario is tagged %q at that difficulty", tag)
		}
	}
	if have := len(l.matching(m.Tags, m.Difficulty)); m.Count > have {
		c.at("mix.count", "a mix of %d, but the library has %d such scenarios (some may be named above)", m.Count, have)
	}
}

// matching are the ids of the scenarios with any of tags (any scenario when none) and of
// difficulty (any when ""), in id order.
func (l *Library) matching(tags []string, difficulty string) []string {
	var out []string
	for _, s := range l.List() {
		if (difficulty == "" || s.Difficulty == difficulty) && (len(tags) == 0 || slices.ContainsFunc(tags, func(t string) bool { return slices.Contains(s.Tags, t) })) {
			out = append(out, s.ID)
		}
	}
	return out
}

// Roster is the shift's patients as they start: those it names, then its mix drawn from the
// library with seed, each a scenario no other patient of the shift has, in a bed no other has.
// Drawn patients take the next free ids patient_N.
func (l *Library) Roster(sh Shift, seed int64) ([]ShiftPatient, error) {
	out := slices.Clone(sh.Patients)
	if sh.Mix == nil {
		return out, nil
	}
	used, ids, beds := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range out {
		used[p.Scenario], ids[p.ID], beds[p.Bed] = true, true, true
	}
	drawn, err := l.draw(*sh.Mix, used, seed)
	if err != nil {
		return nil, fmt.Errorf("shift %s: %w", sh.ID, err)
	}
	n := 1
	for _, s := range drawn {
		for ids[fmt.Sprintf("patient_%d", n)] {
			n++
		}
		id := fmt.Sprintf("patient_%d", n)
		ids[id] = true
		bed := FreeBed(s.Demographics.Bed, beds)
		beds[bed] = true
		out = append(out, ShiftPatient{ID: id, Scenario: s.ID, Bed: bed})
	}
	return out, nil
}

// draw picks m.Count unused scenarios, taking the tags in turn; the seed shuffles each tag's
// scenarios, so shifts differ while a replay with the same seed draws the same.
func (l *Library) draw(m Mix, used map[string]bool, seed int64) ([]*Scenario, error) {
	tags := m.Tags
	if len(tags) == 0 {
		tags = []string{""}
	}
	pools := make([][]string, len(tags))
	for i, tag := range tags {
		var want []string
		if tag != "" {
			want = []string{tag}
		}
		pools[i] = shuffled(l.matching(want, m.Difficulty), seed+int64(i))
	}
	taken := maps.Clone(used)
	var out []*Scenario
	for len(out) < m.Count {
		progress := false
		for i := range pools {
			for len(pools[i]) > 0 && len(out) < m.Count {
				id := pools[i][0]
				pools[i] = pools[i][1:]
				if !taken[id] {
					taken[id] = true
					s, _ := l.Get(id)
					out, progress = append(out, s), true
					break
				}
			}
		}
		if !progress {
			return nil, fmt.Errorf("a mix of %d %s, but only %d such scenarios are not on the roster already", m.Count, mixWords(m), len(out))
		}
	}
	return out, nil
}

func mixWords(m Mix) string {
	w := "scenarios"
	if len(m.Tags) > 0 {
		w += " tagged " + strings.Join(m.Tags, " or ")
	}
	if m.Difficulty != "" {
		w += " at " + m.Difficulty
	}
	return w
}

// shuffled is ids in an order that depends only on them and the seed.
func shuffled(ids []string, seed int64) []string {
	out := slices.Clone(ids)
	key := func(id string) uint64 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%s", seed, id)
		return h.Sum64()
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// FreeBed is want, or when another patient has it, the next bed of its kind: "Resus 4" becomes
// "Resus 5", "Side room" becomes "Side room 2".
func FreeBed(want string, taken map[string]bool) string {
	if !taken[want] {
		return want
	}
	stem, n := want, 1
	if i := strings.LastIndexByte(want, ' '); i >= 0 {
		if k, err := strconv.Atoi(want[i+1:]); err == nil {
			stem, n = want[:i], k
		}
	}
	for {
		n++
		if bed := fmt.Sprintf("%s %d", stem, n); !taken[bed] {
			return bed
		}
	}
}

// builtinShifts parses the built-in shifts on first use.
func (l *Library) builtinShifts() []error {
	l.shiftsOnce.Do(func() { l.shiftErrs = l.parseBuiltinShifts() })
	return l.shiftErrs
}

func (l *Library) parseBuiltinShifts() []error {
	l.shifts = map[string]Shift{}
	files, err := yamlFiles(shiftsFS, "shifts")
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, name := range files {
		data, _ := fs.ReadFile(shiftsFS, name)
		sh, perrs := l.ParseShift(data)
		if len(perrs) > 0 {
			errs = append(errs, inFile("builtin/"+name, perrs)...)
			continue
		}
		l.shifts[sh.ID] = sh
		l.shiftIDs = append(l.shiftIDs, sh.ID)
	}
	sort.Strings(l.shiftIDs)
	return errs
}

// Shifts returns the built-in shifts, ordered by id.
func (l *Library) Shifts() []Shift {
	l.builtinShifts()
	out := make([]Shift, len(l.shiftIDs))
	for i, id := range l.shiftIDs {
		out[i] = l.shifts[id]
	}
	return out
}

// Shift returns the built-in shift with this id, or else reads the shift
// file at that path.
func (l *Library) Shift(nameOrFile string) (Shift, error) {
	if errs := l.builtinShifts(); len(errs) > 0 {
		return Shift{}, errors.Join(errs...)
	}
	if sh, ok := l.shifts[nameOrFile]; ok {
		return sh, nil
	}
	data, err := os.ReadFile(nameOrFile)
	if err != nil {
		return Shift{}, fmt.Errorf("no built-in shift %q (have %v) and no such file: %w", nameOrFile, l.shiftIDs, err)
	}
	sh, errs := l.ParseShift(data)
	if len(errs) > 0 {
		return Shift{}, errors.Join(inFile(nameOrFile, errs)...)
	}
	return sh, nil
}
