package physio

import (
	"testing"
)

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func errOf[T any](_ T, err error) error { return err }
