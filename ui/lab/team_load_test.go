package lab

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/records"
)

// Teams under load over SSH, on loopback: T teams of M members (leader, airway, circulation,
// drugs, ...), every member at a 120×200 pty at once, each saying L lines to the team's patient,
// each line awaited on every member's screen of the team before the member's next. `ward serve`
// runs as its own process (the offline backend), so its memory and CPU are its own. Afterwards
// each team's stored shift must hold every line once, headed by the member who said it, and each
// member's lines in the order they said them. The figures are logged; BENCHMARKS.md ("Team")
// keeps those of the default, 8 teams of 4 × 5 lines (WARD_TEAM_LOAD=8x4x5). .ci/team.sh builds
// ward and runs this with WARD_BIN.
func TestTeamLoadOverSSH(t *testing.T) {
	teams, members, lines := teamLoadSize(t)
	srv := startServer(t, teams*members, nil, "--backend", "offline", "--shift", "quiet-night")
	roles := []string{"leader", "airway", "circulation", "drugs", "recorder", "circulation", "airway", "drugs"}
	team := func(i int) []string {
		var names []string
		for m := range members {
			names = append(names, fmt.Sprintf("t%02d", i*members+m))
		}
		return names
	}
	for i := range teams {
		args := []string{"team", fmt.Sprintf("team%d", i), "--db", srv.db}
		for m, name := range team(i) {
			args = append(args, "--member", name+":"+roles[m])
		}
		if out, err := exec.Command(srv.bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("ward team: %v\n%s", err, out)
		}
	}
	marks := regexp.MustCompile(`t[0-9]{2}l[0-9]{2}`)
	var wg sync.WaitGroup
	latencies := make([][]time.Duration, teams)
	errs := make(chan error, teams)
	var terms []*sshTerminal
	var termsMu sync.Mutex
	for i := range teams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts, lat, err := srv.playTeam(team(i), lines, marks)
			termsMu.Lock()
			terms = append(terms, ts...)
			termsMu.Unlock()
			latencies[i] = lat
			if err != nil {
				errs <- fmt.Errorf("team%d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, term := range terms {
		term.Close()
	}
	rss, cpu := srv.usage()
	srv.stop()
	if t.Failed() {
		return
	}
	var all []time.Duration
	for i := range teams {
		all = append(all, latencies[i]...)
		if bad := srv.teamLost(fmt.Sprintf("team%d", i), team(i), lines); len(bad) > 0 {
			t.Errorf("team%d: %s", i, strings.Join(bad, "; "))
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("%d teams × %d members × %d lines: 0 lost, 0 out of order; line to every member's screen p50 %s p99 %s; "+
		"server peak RSS %d MiB, CPU %.1f s", teams, members, lines, percentile(all, 50), percentile(all, 99), rss>>20, cpu.Seconds())
}

// teamLoadSize is WARD_TEAM_LOAD (TEAMSxMEMBERSxLINES), 8×4×5 when unset.
func teamLoadSize(t *testing.T) (int, int, int) {
	size := os.Getenv("WARD_TEAM_LOAD")
	if size == "" {
		return 8, 4, 5
	}
	parts := strings.Split(size, "x")
	var n []int
	for _, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 1 {
			break
		}
		n = append(n, v)
	}
	if len(parts) != 3 || len(n) != 3 || n[1] > MaxMembers || n[0]*n[1] > 100 {
		t.Fatalf("WARD_TEAM_LOAD=%q: want TEAMSxMEMBERSxLINES, at most %d members and 100 trainees", size, MaxMembers)
	}
	return n[0], n[1], n[2]
}

// lineMark names member's line i, unique in the class.
func lineMark(member string, i int) string { return fmt.Sprintf("%sl%02d", member, i) }

// playTeam connects the team's members (tall screens, so no line scrolls past between two
// frames), the leader reviews the first patient, and then every member says lines lines at once
// with the others, each awaited on every member's screen before their next. It returns the
// terminals, still connected, and each line's time from its Enter to the last member's screen.
func (s *server) playTeam(names []string, lines int, marks *regexp.Regexp) ([]*sshTerminal, []time.Duration, error) {
	var terms []*sshTerminal
	for _, name := range names {
		term, err := dialTerminalSized(s.addr, name, s.keys[name], maxHeight, termCols)
		if err != nil {
			return terms, nil, fmt.Errorf("%s: %w", name, err)
		}
		term.watchMarks(marks)
		terms = append(terms, term)
		if _, err := term.await("the team's shift", time.Minute, contains("you are "+name)); err != nil {
			return terms, nil, err
		}
	}
	if err := terms[0].typeKeys("review patient_1\r"); err != nil {
		return terms, nil, err
	}
	for _, term := range terms {
		if _, err := term.await("patient_1 chosen", time.Minute, idleWith("patient_1 ")); err != nil {
			return terms, nil, err
		}
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		wg        sync.WaitGroup
		errs      = make(chan error, len(terms))
	)
	for m, term := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				mark := lineMark(names[m], i)
				sent := time.Now()
				if err := term.typeKeys("how are you feeling " + mark + "\r"); err != nil {
					errs <- err
					return
				}
				last, err := everyScreen(terms, mark, 2*time.Minute)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				latencies = append(latencies, last.Sub(sent))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	return terms, latencies, <-errs
}

// everyScreen waits until every terminal's chat has shown mark, and returns when the last one
// first did.
func everyScreen(terms []*sshTerminal, mark string, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for {
		var last time.Time
		missing := ""
		for _, term := range terms {
			at, ok := term.seenAt(mark)
			if !ok {
				missing = term.name
				break
			}
			if at.After(last) {
				last = at
			}
		}
		if missing == "" {
			return last, nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("%s never showed %s within %s", missing, mark, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// teamLost is what is wrong with the team's stored lines: a line not stored exactly once, one
// not headed by the member who said it, one holding two lines, a member's lines out of order.
func (s *server) teamLost(team string, names []string, lines int) []string {
	out, err := exec.Command(s.bin, "dump", "--db", s.db, "--trainee", "team-"+team).Output()
	if err != nil {
		s.t.Fatalf("ward dump --trainee team-%s: %v", team, err)
	}
	var d records.DumpDoc
	if err := json.Unmarshal(out, &d); err != nil {
		s.t.Fatalf("ward dump --trainee team-%s: %v", team, err)
	}
	said := map[string][]int{} // member → the numbers of their lines, in stored order
	var bad []string
	marks := regexp.MustCompile(`(t[0-9]{2})l([0-9]{2})`)
	for _, h := range d.Histories {
		for _, m := range h {
			found := marks.FindAllStringSubmatch(m.Content, -1)
			if m.Role != memory.RoleUser || len(found) == 0 {
				continue
			}
			if len(found) > 1 || found[0][1] != m.By || m.TeamRole == "" {
				bad = append(bad, fmt.Sprintf("%q stored as %s (%s)", m.Content, m.By, m.TeamRole))
			}
			n, _ := strconv.Atoi(found[0][2])
			said[found[0][1]] = append(said[found[0][1]], n)
		}
	}
	for _, name := range names {
		want := make([]int, lines)
		for i := range want {
			want[i] = i
		}
		if !slices.Equal(said[name], want) {
			bad = append(bad, fmt.Sprintf("%s's lines stored %v, want %v", name, said[name], want))
		}
	}
	return bad
}
