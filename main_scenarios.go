package main

import (
	"fmt"

	"github.com/ward-sim/ward/session/authoring"
)

// scenarioAuthoring runs the authoring subcommands of `ward scenarios`: new ID --from EXISTING
// writes a commented starting file and its review (in --scenarios DIR, or here); check [FILE...]
// plays each file's review (every scenario of the library's, with no file) and lists what cannot
// happen, failing (exit 1) on any problem. ok is false when args are neither.
func scenarioAuthoring(c *call) (ok bool, err error) {
	args := c.args
	switch {
	case len(args) == 2 && args[0] == "new":
		if c.o.from == "" {
			return true, usageError{"ward scenarios new ID needs --from EXISTING, the scenario to start from"}
		}
		lib, err := library(c.o)
		if err != nil {
			return true, err
		}
		dir := c.o.scenarios
		if dir == "" {
			dir = "."
		}
		yamlFile, reviewFile, err := authoring.New(lib, args[1], c.o.from, dir)
		if err != nil {
			return true, err
		}
		_, err = fmt.Fprintf(c.stdout, "wrote %s and %s; edit them, then: ward scenarios check %s\n", yamlFile, reviewFile, yamlFile)
		return true, err
	case len(args) >= 1 && args[0] == "check":
		reports, err := checkReports(c, args[1:])
		if err != nil {
			return true, err
		}
		failed := 0
		for _, r := range reports {
			fmt.Fprint(c.stdout, r.Text())
			if len(r.Problems) > 0 {
				failed++
			}
		}
		if failed > 0 {
			return true, fmt.Errorf("%d of %d scenario file(s) have problems", failed, len(reports))
		}
		return true, nil
	}
	return false, nil
}

// checkReports checks the files named, or with none every scenario of the library (the
// built-ins, and --scenarios DIR's).
func checkReports(c *call, files []string) ([]authoring.Report, error) {
	if len(files) == 0 {
		lib, err := library(c.o)
		if err != nil {
			return nil, err
		}
		return authoring.CheckLibrary(lib), nil
	}
	var out []authoring.Report
	for _, file := range files {
		r, err := authoring.Check(file)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
