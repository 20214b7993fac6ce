package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/scenario"
)

// curriculumCommand declares `ward curriculum`: the instructor's list of cases and domains a
// class's next shifts are drawn from.
func curriculumCommand(cl *cli) *cobra.Command {
	return cl.group("curriculum set CASE|DOMAIN... | show | clear",
		"the class's curriculum: the cases and domains the next shifts are drawn from (the instructor's passphrase when encrypted)",
		[]string{"db", "scenarios"},
		spec{use: "set CASE|DOMAIN...", summary: "draw the class's next shifts from these cases (ids from ward scenarios list) and domains (tags, such as obstetrics)",
			args: count(1, -1), run: curriculumSet},
		spec{use: "show", summary: "the curriculum, and the cases it stands for", run: curriculumShow},
		spec{use: "clear", summary: "draw the next shifts from the whole library again", run: curriculumClear})
}

// curriculumSet checks every entry against the library, then keeps them, as the instructor.
func curriculumSet(_ context.Context, c *call) error {
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	cases, err := lib.Curriculum(c.args)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := putCurriculum(c, c.args, "set: "+strings.Join(c.args, " ")); err != nil {
		return err
	}
	return writeCurriculum(c, lib, c.args, cases)
}

func curriculumClear(_ context.Context, c *call) error {
	if err := putCurriculum(c, nil, "cleared"); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.stdout, "The class's curriculum is cleared: the next shifts are drawn from the whole library.")
	return err
}

// putCurriculum writes the curriculum as the instructor, and audits it.
func putCurriculum(c *call, entries []string, detail string) error {
	store, err := persist.OpenAs(c.o.db, persist.Access{Person: persist.Person{Instructor: true}})
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.PutCurriculum(entries); err != nil {
		return err
	}
	return store.Audit().Record(store.Person(), persist.AuditCurriculum, "", detail)
}

// curriculumShow reads the curriculum from a copy of the database, which any trainee may.
func curriculumShow(_ context.Context, c *call) error {
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	store, err := persist.OpenSnapshot(c.o.db)
	if err != nil {
		return err
	}
	defer store.Close()
	entries, err := store.Curriculum()
	if err != nil {
		return err
	}
	if entries == nil {
		_, err := fmt.Fprintln(c.stdout, "No curriculum is set: the next shifts are drawn from the whole library (ward curriculum set CASE|DOMAIN...).")
		return err
	}
	cases, err := lib.Curriculum(entries)
	if err != nil {
		return fmt.Errorf("the curriculum is %s, but %w", strings.Join(entries, " "), err)
	}
	return writeCurriculum(c, lib, entries, cases)
}

// writeCurriculum prints the entries and the cases they stand for, each with its title.
func writeCurriculum(c *call, lib *scenario.Library, entries, cases []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "The class's curriculum: %s\nThe next shifts are drawn from its %d case(s):\n", strings.Join(entries, ", "), len(cases))
	for _, id := range cases {
		s, _ := lib.Get(id) // Curriculum resolved it in lib
		fmt.Fprintf(&b, "  %-36s %s\n", id, s.Title)
	}
	_, err := fmt.Fprint(c.stdout, b.String())
	return err
}
