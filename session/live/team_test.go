package live

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/aar"
)

// A team's lines run in the order they arrived, none lost or merged, each stored with its member
// and role, and every member's screen reads them all from the one Live: 60 lines from three
// members, each submitted before the turns before it have run.
func TestTeamLinesRunInArrivalOrder(t *testing.T) {
	_, s := liveShift(t, 1, 0)
	l := NewLive(s, nil)
	team := []session.Member{{Name: "alice", Role: aar.RoleLeader}, {Name: "bob", Role: aar.RoleCirculation},
		{Name: "carol", Role: aar.RoleDrugs}}
	var streams []<-chan Update
	var want []string
	for i := range 60 {
		m := team[i%3]
		line := fmt.Sprintf("how are you feeling %s %d", m.Name, i)
		want = append(want, m.Name+" · "+m.Role+": "+line)
		streams = append(streams, l.SubmitAs(context.Background(), m, team, line))
	}
	var wg sync.WaitGroup
	for _, ch := range streams {
		wg.Add(1)
		go func() { defer wg.Done(); drain(ch) }()
	}
	wg.Wait()
	msgs, _, err := s.Recent("patient_1", math.MaxInt)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		if m.Role == memory.RoleUser && m.TeamRole != "" {
			got = append(got, m.By+" · "+m.TeamRole+": "+m.Content)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stored lines:\n%q\nwant:\n%q", got, want)
	}
	// The screen heads each line with its member and role.
	var headed int
	for _, c := range l.Snapshot().Chat {
		if c.Role == "user" && c.Speaker == "" {
			t.Errorf("a line on screen is not headed by its member: %+v", c)
		}
		if c.Role == "user" {
			headed++
		}
	}
	if headed == 0 {
		t.Error("no member's line is on screen")
	}
}

// A reply streams to every screen of a team's shift: while one member's turn writes it, the view
// the other members' screens read (Snapshot, which never waits for the turn) holds it as far as
// it has come; once stored, it is in the chat and no longer writing.
func TestAReplyStreamsToEveryMembersView(t *testing.T) {
	const said = "It is hard to breathe. My chest is tight. I cannot finish a sentence."
	reply := `{"reply":"` + said + `","entities_to_update":{},"derived_entities_to_update":{}}`
	sentence := strings.Index(reply, " My")
	f := ollamatest.NewFake(t, ollamatest.Slow(ollamatest.Streamed(reply[:sentence], reply[sentence:sentence+20], reply[sentence+20:]), time.Second))
	store, err := persist.Open(filepath.Join(t.TempDir(), "ward.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s, err := session.Start(session.Config{Store: store, Backend: ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	l := NewLive(s, nil)
	drain(l.Submit(t.Context(), "/admit patient_1"))
	team := []session.Member{{Name: "alice", Role: aar.RoleLeader}, {Name: "bob", Role: aar.RoleCirculation}}
	done := make(chan struct{})
	go func() { drain(l.SubmitAs(t.Context(), team[0], team, "how is your breathing now?")); close(done) }()
	var partial []Writing
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(5 * time.Millisecond):
			for _, w := range l.Snapshot().Writing {
				if w.Text != "" && w.Text != said {
					partial = append(partial, w)
				}
			}
		}
	}
	if len(partial) == 0 || partial[0].Agent != "Patient" || !strings.HasPrefix(said, partial[0].Text) {
		t.Fatalf("bob's view never held the reply part-written: %+v", partial)
	}
	v := l.Snapshot()
	if len(v.Writing) != 0 || v.Chat[len(v.Chat)-1].Content != said {
		t.Errorf("once stored: writing %+v, the chat ends %+v", v.Writing, v.Chat[len(v.Chat)-1])
	}
}
