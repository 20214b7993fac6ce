package main

import (
	"context"
	"fmt"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/authoring"
)

// scenarioAuthoring are the verbs of `ward scenarios` that help write a scenario.
func scenarioAuthoring() []spec {
	return []spec{
		{use: "new ID", summary: "write ID.yaml, a commented copy of --from's scenario, and its review (in --scenarios DIR, or here)",
			flags: []string{"scenarios", "from"}, args: count(1, 1), run: scenariosNew},
		{use: "check [FILE...]", summary: "validate each file and play its review paths; every problem as FILE:LINE (no FILE: the whole library)",
			flags: []string{"scenarios"}, args: count(0, -1), run: scenariosCheck},
		{use: "validate FILE...", summary: "the same as check (its older name)", args: count(1, -1), run: scenariosCheck},
	}
}

// scenariosNew writes a commented starting file and its review.
func scenariosNew(_ context.Context, c *call) error {
	if c.o.from == "" {
		return usageError{"ward scenarios new ID needs --from EXISTING, the scenario to start from"}
	}
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	dir := c.o.scenarios
	if dir == "" {
		dir = "."
	}
	yamlFile, reviewFile, err := authoring.New(lib, c.args[0], c.o.from, dir)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "wrote %s and %s; edit them, then: ward scenarios check %s\n", yamlFile, reviewFile, yamlFile)
	return err
}

// scenariosCheck plays each file's review (every scenario of the library's, with no file) and
// lists what cannot happen, failing (exit 1) on any problem.
func scenariosCheck(_ context.Context, c *call) error {
	reports, err := checkReports(c.o.scenarios, c.args)
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range reports {
		fmt.Fprint(c.stdout, r.Text())
		if len(r.Problems) > 0 {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d scenario file(s) have problems", failed, len(reports))
	}
	return nil
}

// checkReports checks the files named, or with none every scenario of the library (the
// built-ins, and dir's).
func checkReports(dir string, files []string) ([]authoring.Report, error) {
	if len(files) == 0 {
		lib, err := session.LoadLibrary(dir)
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
