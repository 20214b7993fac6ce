package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
)

// Shift is a roster to start a session with.
type Shift struct {
	ID       string         `yaml:"id" required:"true"`
	Title    string         `yaml:"title" required:"true"`
	Patients []ShiftPatient `yaml:"patients" required:"true"`
}

// ShiftPatient places one patient: its id, scenario and bed (the scenario's
// default bed when empty).
type ShiftPatient struct {
	ID       string `yaml:"id" required:"true"`
	Scenario string `yaml:"scenario" required:"true"`
	Bed      string `yaml:"bed"`
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
	for i, p := range sh.Patients {
		if p.Bed == "" {
			sc, _ := l.Get(p.Scenario) // checkShift made sure it exists
			sh.Patients[i].Bed = sc.Demographics.Bed
		}
	}
	return sh, nil
}

func (c *checker) checkShift(l *Library, sh *Shift) {
	if sh.ID != "" && !idRe.MatchString(sh.ID) {
		c.at("id", "id %q must be lowercase letters, digits, - or _", sh.ID)
	}
	if len(sh.Patients) == 0 {
		c.at("patients", "a shift needs at least one patient")
	}
	seen := map[string]bool{}
	for i, p := range sh.Patients {
		path := fmt.Sprintf("patients[%d]", i)
		if seen[p.ID] {
			c.at(path+".id", "duplicate patient id %q", p.ID)
		}
		seen[p.ID] = true
		if _, ok := l.Get(p.Scenario); p.Scenario != "" && !ok {
			c.at(path+".scenario", "unknown scenario %q", p.Scenario)
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
