package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
)

func dump(_ context.Context, c *call) error {
	// A dump holds one message, one engine at a time: collecting at a quarter of the heap's
	// growth instead of its doubling keeps its memory near that, for a little more CPU.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	return readStore(c, persist.AuditExport, "dump", func(st *persist.Store) error {
		return records.WriteDump(c.stdout, st, lib, !secretsShown(c.o, st))
	})
}

func aar(_ context.Context, c *call) error {
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	return readStore(c, persist.AuditExport, "review of "+orActive(c.o.patient)+" as "+c.o.format, func(st *persist.Store) error {
		report, err := records.AAR(st, lib, c.o.patient)
		if err != nil {
			return err
		}
		return writeOut(c, report, "", report.Markdown())
	})
}

func export(_ context.Context, c *call) error {
	return readStore(c, persist.AuditExport, "chat of "+orEvery(c.o.patient)+" as "+c.o.format, func(st *persist.Store) error {
		tr, err := records.Export(st, c.o.patient)
		if err != nil {
			return err
		}
		return writeOut(c, tr, "", tr.Markdown())
	})
}

func orActive(patient string) string {
	if patient == "" {
		return "the active patient"
	}
	return patient
}

func orEvery(patient string) string {
	if patient == "" {
		return "every patient"
	}
	return patient
}

// progress prints a trainee's shifts as a table and charts.
func progress(_ context.Context, c *call) error {
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	return readStore(c, persist.AuditReport, "progress", func(st *persist.Store) error {
		p, err := records.ReadProgress(st, lib)
		if err != nil {
			return err
		}
		return writeTable(c, p)
	})
}

// report writes the class report, as the instructor: every trainee's shifts.
func report(ctx context.Context, c *call) error {
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	c.o.instructor = true
	if c.given("lrs") {
		return lrsReport(ctx, c, lib)
	}
	if c.o.format == "xapi" || c.given("xapi-base") || c.given("xapi-homepage") {
		return xapiReport(c, lib)
	}
	return readStore(c, persist.AuditReport, "class report as "+c.o.format, func(st *persist.Store) error {
		r, err := records.ReadClassReport(st, lib)
		if err != nil {
			return err
		}
		return toOut(c, func(out io.Writer) error {
			switch c.o.format {
			case "csv":
				return r.CSV(out)
			case "json":
				return writeJSON(out, r)
			}
			_, err := io.WriteString(out, r.Markdown())
			return err
		})
	})
}

// xapiReport writes every trainee's results as xAPI statements, a JSON array for a learning
// record store.
func xapiReport(c *call, lib *scenario.Library) error {
	if c.o.format != "xapi" {
		return usageError{"--xapi-base and --xapi-homepage go with --format xapi — see ward report --help"}
	}
	names, err := xapiNames(c.o)
	if err != nil {
		return err
	}
	return readStore(c, persist.AuditReport, "class report as xapi", func(st *persist.Store) error {
		statements, err := records.ReadXAPI(st, lib, names)
		if err != nil {
			return err
		}
		return toOut(c, func(out io.Writer) error { return writeJSON(out, statements) })
	})
}

// xapiNames are the IRIs --xapi-base and --xapi-homepage give, checked alike.
func xapiNames(o *options) (records.XAPINames, error) {
	base, err := records.XAPIBase(o.xapiBase)
	if err != nil {
		return records.XAPINames{}, usageError{err.Error()}
	}
	home := base
	if o.xapiHomePage != "" {
		if home, err = records.XAPIBase(o.xapiHomePage); err != nil {
			return records.XAPINames{}, usageError{"--xapi-homepage: " + err.Error()}
		}
	}
	return records.XAPINames{Base: base, HomePage: home}, nil
}

func stats(_ context.Context, c *call) error {
	w, err := statsWindow(c.o, time.Now())
	if err != nil {
		return err
	}
	return readStore(c, persist.AuditOpen, "stats", func(st *persist.Store) error {
		report, err := records.ReadStats(st, w, c.o.alerts)
		if err != nil {
			return err
		}
		return writeTable(c, report)
	})
}

// statsWindow is the turns --last or --since name, at most one of them.
func statsWindow(o *options, now time.Time) (records.Window, error) {
	switch {
	case o.last < 0:
		return records.Window{}, usageError{"--last takes a number of turns, 1 or more — see ward stats --help"}
	case o.last > 0 && o.since != "":
		return records.Window{}, usageError{"--last and --since each pick the window: give one — see ward stats --help"}
	case o.since == "":
		return records.Window{Last: o.last}, nil
	}
	if ago, err := time.ParseDuration(o.since); err == nil && ago > 0 {
		return records.Window{Since: now.Add(-ago)}, nil
	}
	at, err := time.Parse(time.RFC3339, o.since)
	if err != nil {
		return records.Window{}, usageError{fmt.Sprintf("--since %q is neither a time (2026-11-28T14:00:00Z) nor a duration (15m) — see ward stats --help", o.since)}
	}
	return records.Window{Since: at}, nil
}

// auditList prints the audit record, oldest first.
func auditList(_ context.Context, c *call) error {
	path := persist.AuditPath(c.o.db)
	entries, err := persist.ReadAudit(path)
	switch {
	case err != nil:
		return err
	case c.o.json:
		return writeJSON(c.stdout, entries)
	case len(entries) == 0:
		_, err := fmt.Fprintf(c.stdout, "no audit record yet (%s)\n", path)
		return err
	}
	for _, e := range entries {
		fmt.Fprintf(c.stdout, "%s  %-10s  %-28s  %-17s  %-26s  %s\n", e.At.Local().Format("2006-01-02 15:04:05"),
			e.User, e.As, e.Action, e.Session, e.Detail)
	}
	return nil
}

func archiveList(_ context.Context, c *call) error {
	return readStore(c, persist.AuditOpen, "archive list", func(st *persist.Store) error { return records.ArchiveList(st, c.stdout) })
}

func archiveShow(_ context.Context, c *call) error {
	n := c.args[0]
	return readStore(c, persist.AuditExport, "archive "+n, func(st *persist.Store) error {
		return records.ArchiveShow(st, n, c.stdout, !secretsShown(c.o, st))
	})
}

// archiveRestore writes, so it takes the file like any writer; it still never creates one.
func archiveRestore(_ context.Context, c *call) error {
	store, err := persist.OpenAs(c.o.db, persist.Access{Person: person(c), Existing: true})
	if err != nil {
		return err
	}
	defer store.Close()
	if err := records.ArchiveRestore(store, c.args[0], c.stdout); err != nil {
		return err
	}
	info, _, err := store.LatestSession()
	if err != nil {
		return err
	}
	return store.Audit().Record(store.Person(), persist.AuditRestore, info.ID, "archive "+c.args[0])
}
