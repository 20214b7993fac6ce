package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

// sshTeamVF holds a team of three running the VF arrest to ROSC (ward serve --seed 1: ROSC at the
// second shock), as session's TestTeamRunsVFArrestToROSC plays it: each step "[MM:SS] NAME
// LINE", the leader's /wait to its time first. The leader orders, the members say it back done;
// the adrenaline order is never said done; carol's oxygen is the airway's work.
const sshTeamVF = "testdata/team-vf-arrest.txt"

// Issue 39's team over SSH with the real OpenSSH client: `ward team` forms alice (leader), bob
// (circulation) and carol (drugs) while `ward serve` runs; each connects with their own key to
// the one shift; the leader's orders reach every screen and wait for the member who holds them;
// carol's connection drops mid-arrest and she returns to the same arrest; the team runs the VF
// arrest to ROSC and the review names who did what, the closed-loop rate and the order never
// said done. .ci/team.sh builds ward and runs this with WARD_BIN.
func TestSSHTeam(t *testing.T) {
	lab := startLab(t, func(l *sshLab) {
		l.run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "carol", "-f", l.key("carol"))
		l.run(l.bin, "enrol", "carol", "--key", l.key("carol")+".pub", "--db", l.db)
		l.serveArgs = append(l.serveArgs, "--seed", "1")
	})
	formed := lab.run(lab.bin, "team", "red", "--member", "alice:leader", "--member", "bob:circulation",
		"--member", "carol:drugs", "--scenario", "arrest-vf-ward", "--db", lab.db)
	if !strings.Contains(formed, "formed team red: alice (leader), bob (circulation), carol (drugs)") {
		t.Fatalf("ward team said: %s", formed)
	}
	term := map[string]*labTerminal{}
	for _, who := range []string{"alice", "bob", "carol"} {
		term[who] = lab.ssh(who, who, "Graham Holt")
	}
	term["alice"].waitFor(`you are alice \(leader\)`)

	stored, clock := 0, 0
	script, err := os.ReadFile(sshTeamVF)
	if err != nil {
		t.Fatal(err)
	}
	for i, step := range strings.Split(strings.TrimSpace(string(script)), "\n") {
		at, rest, _ := strings.Cut(step, " ")
		var mm, ss int
		if _, err := fmt.Sscanf(at, "%d:%d", &mm, &ss); err != nil {
			t.Fatalf("step %q: %v", step, err)
		}
		if d := mm*60 + ss - clock; d > 0 {
			term["alice"].send(line(fmt.Sprintf("/wait %ds", d)))
			term["alice"].waitFor(regexp.QuoteMeta(fmt.Sprintf("sim clock %s.", at)))
		}
		clock = mm*60 + ss
		who, said, _ := strings.Cut(rest, " ")
		term[who].send(line(said))
		stored++
		lab.awaitTeamLines(stored)
		switch i {
		case 2: // the leader's first order for bob is on every screen
			for _, w := range term {
				w.waitFor(`Order for bob \(circulation\): "start CPR"`)
			}
		case 11: // after the first shock carol's connection drops; she comes back to the arrest
			_ = exec.Command("tmux", "-L", term["carol"].socket, "kill-server").Run()
			term["carol"] = lab.ssh("carol", "carol", "Graham Holt")
			term["carol"].waitFor(`150 J shock delivered`)
			term["carol"].waitFor(`bob · circulation`)
		}
	}
	term["alice"].send(line("/aar")) // the review, then the Preceptor's debrief, on every screen
	for _, w := range term {
		w.waitFor(`closed-loop rate 9 of 10`)
		w.waitFor(`Which one thing will you do differently`)
	}

	review := lab.run(lab.bin, "aar", "--db", lab.db, "--trainee", "team-red")
	for _, want := range []string{"Final state:** rosc", "Members: alice (leader), bob (circulation), carol (drugs).",
		"Closed-loop rate: 9 of 10", `- alice to carol at 03:30: "give 1 mg adrenaline IV"`, "### bob (circulation)",
		`"CPR started" (said done: "start CPR")`, `"oxygen 15 L via non-rebreather" — outside their role: airway`} {
		if !strings.Contains(review, want) {
			t.Errorf("the team's review lacks %q:\n%s", want, review)
		}
	}
}

// awaitTeamLines waits until the team's stored shift holds n lines said by its members: a line is
// stored once its turn has begun, so the next member's line arrives after it.
func (l *sshLab) awaitTeamLines(n int) {
	l.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got int
		for _, h := range l.dump("team-red").Histories {
			for _, m := range h {
				if m.Role == memory.RoleUser && m.TeamRole != "" {
					got++
				}
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("the team's shift holds %d of %d lines", got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
