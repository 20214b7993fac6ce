package session

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/persist"
)

// setupStore is a store with prefs saved for alice, signed in as bob: the start dialog signs
// alice in later.
func setupStore(t *testing.T, prefs Prefs) *persist.Store {
	t.Helper()
	store, err := persist.Open(filepath.Join(t.TempDir(), "ward.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if err := prefs.Save(store, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := store.SignIn(persist.Person{Trainee: "bob"}, nil); err != nil {
		t.Fatal(err)
	}
	return store
}

// A trainee the start dialog signs in gets their own window and theme, as at start-up, unless
// the command line chose them.
func TestTheStartDialogsTraineeGetsTheirPreferences(t *testing.T) {
	store := setupStore(t, Prefs{Theme: "light", Window: "sliding"})
	for _, tc := range []struct {
		given         map[string]bool
		theme, window string
	}{{nil, "light", "sliding"}, {map[string]bool{"theme": true, "window": true}, "dark", "block"}} {
		setup, err := NewSetup(context.Background(), store, Flags{Backend: "offline", Theme: "dark", Window: "block", Given: tc.given}, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := setup.Config(context.Background()); err != nil || setup.Theme() != "dark" {
			t.Fatalf("bob, who has no preferences: theme %q, %v", setup.Theme(), err)
		}
		if err := store.SignIn(persist.Person{Trainee: "alice"}, nil); err != nil {
			t.Fatal(err)
		}
		started, err := setup.Config(context.Background())
		if err != nil || setup.Theme() != tc.theme || string(started.Window.Mode) != tc.window {
			t.Errorf("given %v: theme %q, window %q (%v); want %q, %q", tc.given, setup.Theme(), started.Window.Mode, err, tc.theme, tc.window)
		}
		if err := store.SignIn(persist.Person{Trainee: "bob"}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// On Ollama, the trainee who opens ward gets the model they prefer, probed once at start; a
// trainee the start dialog signs in gets theirs (here the command line's), and since Ollama
// answered at start, a model it lacks is an error, not a quiet fall back to offline.
func TestTheStartDialogsTraineeGetsTheirModel(t *testing.T) {
	f := ollamatest.NewFake(t)
	t.Setenv("OLLAMA_HOST", f.URL())
	t.Setenv("WARD_MODEL", "")
	store := setupStore(t, Prefs{})
	if err := (Prefs{Model: ollamatest.TestModel}).Save(store, "bob"); err != nil {
		t.Fatal(err)
	}
	setup, err := NewSetup(context.Background(), store, Flags{Backend: "auto", Model: "absent", Window: "block"}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	opener, err := setup.Config(context.Background())
	if err != nil || opener.Backend.Name() != "ollama" || opener.Backend.Model() != ollamatest.TestModel {
		t.Fatalf("bob's shift: %s %q, %v; want ollama %q", opener.Backend.Name(), opener.Backend.Model(), err, ollamatest.TestModel)
	}
	if err := store.SignIn(persist.Person{Trainee: "alice"}, nil); err != nil {
		t.Fatal(err)
	}
	if started, err := setup.Config(context.Background()); err == nil {
		t.Errorf("alice's shift on a model Ollama lacks: %s %q, no error", started.Backend.Name(), started.Backend.Model())
	}
}
