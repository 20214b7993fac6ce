package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/ward-sim/ward/persist"
)

// encrypt converts the database to an encrypted one under a new instructor's passphrase.
func encrypt(_ context.Context, c *call) error {
	if err := persist.MustExist(c.o.db); err != nil {
		return err
	}
	pass, err := persist.AskPassphrase(persist.EnvInstructorPassphrase, "The instructor's passphrase for the encrypted database", true)
	if err != nil {
		return err
	}
	trainees, err := persist.Encrypt(c.o.db, pass, c.o.trainee)
	if err != nil {
		return err
	}
	if err := persist.AuditFor(c.o.db).Record(persist.Person{Instructor: true}, persist.AuditEncrypt, "", fmt.Sprintf("%d trainee(s)", len(trainees))); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s is encrypted. Each trainee's shifts open with the instructor's passphrase until the instructor gives them one:\n", c.o.db)
	for _, t := range trainees {
		fmt.Fprintf(c.stdout, "  ward passwd --instructor --trainee %s\n", t)
	}
	return nil
}

// passwd gives a trainee a new passphrase; their current one, or the instructor's, opens the way.
// With --instructor and no trainee named, the instructor changes their own.
func passwd(_ context.Context, c *call) error {
	store, err := persist.OpenAs(c.o.db, persist.Access{Person: person(c), Existing: true})
	if err != nil {
		return err
	}
	defer store.Close()
	if encrypted, err := store.Encrypted(); err != nil || !encrypted {
		if err == nil {
			err = errors.New("this database is not encrypted, so there are no passphrases (`ward encrypt` encrypts it)")
		}
		return err
	}
	whose, set := "trainee "+c.o.trainee, func(pass []byte) error { return store.SetPassphrase(c.o.trainee, pass) }
	if c.o.instructor && !c.given("trainee") {
		whose, set = "the instructor", store.SetInstructorPassphrase
	}
	pass, err := persist.AskPassphrase(persist.EnvNewPassphrase, "New passphrase of "+whose, true)
	if err == nil {
		err = set(pass)
	}
	if err == nil {
		err = store.Audit().Record(store.Person(), persist.AuditPassphrase, "", "for "+whose)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "%s has a new passphrase\n", whose)
	return err
}

// recoverDB copies what is readable of a damaged database into a new file and says what was lost.
func recoverDB(_ context.Context, c *call) error {
	if c.o.out == "" {
		return usageError{"usage: ward recover --db DAMAGED --out NEW — see ward recover --help"}
	}
	report, err := persist.Recover(c.o.db, c.o.out)
	if err == nil && c.o.instructor && report.Unchecked > 0 {
		err = checkRecovered(&report)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.stdout, report)
	return err
}

// checkRecovered opens every encrypted value of a recovered file with the instructor's key.
func checkRecovered(report *persist.RecoverReport) error {
	pass, err := persist.AskPassphrase(persist.EnvInstructorPassphrase, "The instructor's passphrase, to check the recovered values", false)
	if err == nil {
		err = report.CheckSealed(pass)
	}
	return err
}

// secretsShown reports whether the engine's secrets show (session.Config.Instructor): to the
// instructor, or with --debug on a database that is not encrypted, where no one's records are
// kept from anyone.
func secretsShown(o *options, store *persist.Store) bool {
	if o.instructor {
		return true
	}
	encrypted, err := store.Encrypted()
	return o.debug && err == nil && !encrypted
}
