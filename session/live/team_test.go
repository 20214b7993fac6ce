package live

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/ward-sim/ward/memory"
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
