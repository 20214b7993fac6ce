package main

import (
	"context"
	"fmt"
	"os"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
)

// lrsReport posts every trainee's results to a learning record store, through the database's
// outbox: it writes to the file, so it opens it as a writer, and never creates one.
func lrsReport(ctx context.Context, c *call, lib *scenario.Library) error {
	if c.given("format") && c.o.format != "xapi" || c.given("out") {
		return usageError{"--lrs posts xAPI statements: it takes no other --format and no --out — see ward report --help"}
	}
	if c.o.lrsTimeout <= 0 {
		return usageError{"--lrs-timeout takes a duration above 0, e.g. 30s — see ward report --help"}
	}
	names, err := xapiNames(c.o)
	if err != nil {
		return err
	}
	lrs, err := records.NewLRS(c.o.lrs, os.Getenv("WARD_LRS_USER"), os.Getenv("WARD_LRS_PASSWORD"))
	if err != nil {
		return usageError{err.Error()}
	}
	store, err := persist.OpenAs(c.o.db, persist.Access{Person: person(c), Existing: true})
	if err != nil {
		return err
	}
	defer store.Close()
	statements, err := records.ReadXAPI(store, lib, names)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.o.lrsTimeout)
	defer cancel()
	posted, postErr := records.PostXAPI(ctx, lrs, store, statements)
	if posted.Earlier > 0 {
		fmt.Fprintf(c.stdout, "%d statement(s) waited in the outbox from an earlier run\n", posted.Earlier)
	}
	fmt.Fprintf(c.stdout, "%d new statement(s) put in the outbox; %d taken by %s; %d waiting\n", posted.Added, posted.Sent, lrs.Statements, posted.Left)
	if err := store.Audit().Record(store.Person(), persist.AuditReport, "", fmt.Sprintf("class report as xapi: %d statement(s) to %s", posted.Sent, lrs.Statements)); err != nil {
		return fmt.Errorf("statements went to the LRS but are not in the audit record: %w", err)
	}
	if postErr != nil {
		return fmt.Errorf("%w; %d statement(s) wait in the outbox for the next run", postErr, posted.Left)
	}
	return nil
}
