package persist

import (
	"os"
	"testing"
)

// TestWriteSchema2Fixture writes testdata/schema2-encrypted.db, the encrypted database the
// migration test opens, when WARD_WRITE_SCHEMA2_FIXTURE names where to write it. It was run once,
// at e333bf1, with the sealing code as it was then (values sealed with no associated data), so
// the fixture is what a ward of that time wrote: alice and bob enrolled (passphrases "alice
// pass", "bob pass", the instructor's "instructor pass"), each with a shift holding a registry,
// both histories, documents, an archive and preferences.
func TestWriteSchema2Fixture(t *testing.T) {
	out := os.Getenv("WARD_WRITE_SCHEMA2_FIXTURE")
	if out == "" {
		t.Skip("set WARD_WRITE_SCHEMA2_FIXTURE to write the fixture")
	}
	s, path := encryptedStore(t)
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
