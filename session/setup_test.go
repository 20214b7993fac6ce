package session

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ward-sim/ward/agents/backend"
	"github.com/ward-sim/ward/agents/llm"
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
		setup, err := NewSetup(context.Background(), store, Flags{Backend: "offline", Theme: "dark", Window: "block", Given: tc.given}, wired(t, store), func(string) {})
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
	setup, err := NewSetup(context.Background(), store, Flags{Backend: "auto", Model: "absent", Window: "block"}, wired(t, store), func(string) {})
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

// named is a backend under another model name: the share of the backend one trainee is given.
type named struct {
	llm.Backend
	model string
}

func (n named) Model() string { return n.model }

// A server's Setup gives each trainee their own: their store view and their share of the
// backend; the server's own Setup, and the shifts of the others, are left as they were.
func TestForTraineeGivesEachTheirStoreAndBackend(t *testing.T) {
	store := setupStore(t, Prefs{Model: "alices-model"})
	server, err := NewSetup(context.Background(), store, Flags{Backend: "offline", Window: "block"}, wired(t, store), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	view, err := store.As(persist.Person{Trainee: "alice"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer view.Close()
	alice := server.ForTrainee(view, named{server.Backend(), "alice's share"})
	if s, resumed, err := alice.Resume(context.Background()); s != nil || resumed || err != nil {
		t.Fatalf("alice, who has no shift, resumed %v (%v)", resumed, err)
	}
	s, resumed, err := alice.Open(context.Background())
	if err != nil || resumed {
		t.Fatalf("open: resumed %v, %v", resumed, err)
	}
	if again, resumed, err := alice.Resume(context.Background()); err != nil || !resumed || again.ID() != s.ID() {
		t.Errorf("alice's resume: %v (%v); want the shift she opened", resumed, err)
	}
	if _, model := s.Backend(); model != "alice's share" {
		t.Errorf("alice's shift asks %q; want her share of the backend", model)
	}
	if latest, ok, err := view.LatestSession(); err != nil || !ok || latest.Trainee != "alice" {
		t.Errorf("alice's shift is %+v, %v (%v); want hers", latest, ok, err)
	}
	if server.Store() != store || server.Backend().Model() == "alice's share" {
		t.Error("ForTrainee changed the server's Setup")
	}
}

// wired is what main wires a setup with: ward's backends and the built-in cards.
func wired(t *testing.T, store *persist.Store) Wiring {
	t.Helper()
	kb, err := backend.Knowledge("", "", store)
	if err != nil {
		t.Fatal(err)
	}
	return Wiring{Backends: backend.Choose, Knowledge: kb}
}
