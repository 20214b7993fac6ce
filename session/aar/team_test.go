package aar

import (
	"strings"
	"testing"
)

// The loops read back from a team's lines: an order said done by its member is closed; one done
// by another member was carried out but not closed; the nurse's is carried out as it is said;
// one no one said done stays open.
func TestTeamClosedLoops(t *testing.T) {
	rev := Team([]TeamLine{
		{At: 10, By: "alice", Role: RoleLeader, For: "bob", Text: "shock 150 J"},
		{At: 12, By: "bob", Role: RoleCirculation, Text: "150 J shock delivered"},
		{At: 20, By: "alice", Role: RoleLeader, For: "carol", Text: "IV access"},
		{At: 25, By: "bob", Role: RoleCirculation, Text: "IV access done"},
		{At: 30, By: "alice", Role: RoleLeader, For: Nurse, Text: "oxygen 15 L via non-rebreather"},
		{At: 40, By: "alice", Role: RoleLeader, For: "carol", Text: "give 1 mg adrenaline IV"},
		{At: 41, By: "carol", Role: RoleDrugs, Text: "ok"},
		{At: 50, By: "bob", Role: RoleCirculation, Text: "amiodarone 300 mg IV given"},
	})
	if rev.Addressed != 3 || rev.Closed != 1 || rev.Rate() != 1.0/3 {
		t.Errorf("closed %d of %d (%.2f), want 1 of 3", rev.Closed, rev.Addressed, rev.Rate())
	}
	if o := rev.Orders[1]; o.Done == nil || o.DoneBy != "bob" {
		t.Errorf("IV access done by bob instead of carol: %+v", o)
	}
	if o := rev.Orders[2]; o.Done == nil || *o.Done != 30 || o.DoneBy != Nurse {
		t.Errorf("the nurse's order: %+v", o)
	}
	open := rev.Unacknowledged()
	if len(open) != 1 || open[0].Text != "give 1 mg adrenaline IV" {
		t.Errorf("unacknowledged: %+v", open)
	}
	// bob gave amiodarone: the drugs member's work, and no order matched it.
	var bob MemberReview
	for _, m := range rev.Members {
		if m.Name == "bob" {
			bob = m
		}
	}
	if len(bob.Actions) != 3 || len(bob.Actions[1].Outside) != 1 || bob.Actions[2].Outside[0] != RoleDrugs || bob.Actions[2].Closes != "" {
		t.Errorf("bob's actions: %+v", bob.Actions)
	}
	// carol's "ok" did nothing: no action of hers is listed.
	for _, m := range rev.Members {
		if m.Name == "carol" && len(m.Actions) != 0 {
			t.Errorf("carol's actions: %+v", m.Actions)
		}
	}
}

func TestTeamRate(t *testing.T) {
	if r := (TeamReview{}).Rate(); r != 0 {
		t.Errorf("no orders: rate %v", r)
	}
}

// The Preceptor's digest carries the team's part: the loops, the order never said done, and
// each member's lines, those outside their role counted.
func TestTeamDigest(t *testing.T) {
	r := Report{Team: Team([]TeamLine{
		{At: 10, By: "alice", Role: RoleLeader, For: "bob", Text: "shock 150 J"},
		{At: 12, By: "bob", Role: RoleCirculation, Text: "150 J shock delivered"},
		{At: 40, By: "alice", Role: RoleLeader, For: "bob", Text: "stop compressions"},
		{At: 50, By: "bob", Role: RoleCirculation, Text: "amiodarone 300 mg IV given"},
	})}
	d := r.Digest()
	for _, want := range []string{"Team: closed-loop rate 1 of 2", `Team: alice's order to bob at 00:40 was never said done: "stop compressions".`,
		"Team: bob (circulation) said 2 lines that acted, 1 outside their role."} {
		if !strings.Contains(d, want) {
			t.Errorf("the digest lacks %q:\n%s", want, d)
		}
	}
	if (Report{}).teamDigest() != nil {
		t.Error("a shift of one has a team digest")
	}
}
