package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/persist/outfile"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/ui"
	"github.com/ward-sim/ward/ui/board"
)

// A team is enrolled trainees sharing one shift, each in a role (session.TeamRoles). The teams
// are a file beside the database (TeamsPath), as the enrolments are, so `ward team` works while
// the server runs and the server reads it afresh at each connection: one line per team formed,
// "team NAME SCENARIO MEMBER:ROLE...", SCENARIO "-" for none; a team formed again is its last
// line. The team's shift is stored as a trainee's named after the team (Team.Trainee); every
// member's connection shows the one Live the server holds for it while any member is connected.

// TeamsPath is the teams of the database at dbPath.
func TeamsPath(dbPath string) string { return dbPath + ".teams" }

// MaxMembers bounds a team: the five roles, and a second pair of hands for compressions.
const MaxMembers = 8

// Team is a team formed for a shift.
type Team struct {
	Name     string
	Scenario string // the case its shift starts with; "" for the server's --shift
	Members  []session.Member
}

// teamPrefix begins the name a team's shift is stored under; ward enrol refuses it for a trainee,
// who would otherwise open the team's shifts as their own.
const teamPrefix = "team-"

// Trainee is the name the team's shift is stored under.
func (t Team) Trainee() string { return teamPrefix + t.Name }

// Member is the team's member named; false when they are not one.
func (t Team) Member(name string) (session.Member, bool) {
	i := slices.IndexFunc(t.Members, func(m session.Member) bool { return m.Name == name })
	if i < 0 {
		return session.Member{}, false
	}
	return t.Members[i], true
}

// check refuses a team that is not well formed: its name, its members' names and roles (each one
// of roles, or any word for nil), how many, and a member named twice.
func (t Team) check(roles []string) error {
	if err := CheckName(t.Name); err != nil {
		return fmt.Errorf("team name: %w", err)
	}
	if len(t.Members) == 0 || len(t.Members) > MaxMembers {
		return fmt.Errorf("team %s: 1 to %d members, not %d", t.Name, MaxMembers, len(t.Members))
	}
	for i, m := range t.Members {
		if err := CheckName(m.Name); err != nil {
			return err
		}
		if roles == nil && !rolePattern.MatchString(m.Role) {
			return fmt.Errorf("team %s: %s's role %q is not a role's name", t.Name, m.Name, m.Role)
		}
		if roles != nil && !slices.Contains(roles, m.Role) {
			return fmt.Errorf("team %s: %s's role %q is none of %s", t.Name, m.Name, m.Role, strings.Join(roles, ", "))
		}
		if slices.ContainsFunc(t.Members[:i], func(o session.Member) bool { return o.Name == m.Name }) {
			return fmt.Errorf("team %s: %s is named twice", t.Name, m.Name)
		}
	}
	return nil
}

// rolePattern is what a role read back from the teams may be: formed, it was one of its case's.
var rolePattern = regexp.MustCompile(`^[a-z][a-z-]{0,31}$`)

// ParseMember reads NAME:ROLE.
func ParseMember(s string) (session.Member, error) {
	name, role, ok := strings.Cut(s, ":")
	if !ok {
		return session.Member{}, fmt.Errorf("%q is not NAME:ROLE (roles: %s)", s, strings.Join(session.TeamRoles, ", "))
	}
	return session.Member{Name: name, Role: role}, nil
}

func (t Team) line() string {
	scenario := t.Scenario
	if scenario == "" {
		scenario = "-"
	}
	parts := []string{"team", t.Name, scenario}
	for _, m := range t.Members {
		parts = append(parts, m.Name+":"+m.Role)
	}
	return strings.Join(parts, " ") + "\n"
}

// Teams are the teams formed for a database, the latest of each name.
type Teams []Team

// ReadTeams reads the teams at path; no file is none. A trainee named in two teams is in the
// one formed last.
func ReadTeams(path string) (Teams, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var all Teams
	lines := strings.Split(string(data), "\n")
	for n, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		t, err := parseTeam(line)
		if err != nil && n == len(lines)-1 {
			break // being appended
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		all = slices.DeleteFunc(all, func(o Team) bool { return o.Name == t.Name })
		all = append(all, t)
	}
	return all, nil
}

func parseTeam(line string) (Team, error) {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "team" {
		return Team{}, errors.New(`not a team: want "team NAME SCENARIO MEMBER:ROLE..."`)
	}
	t := Team{Name: f[1], Scenario: f[2]}
	if t.Scenario == "-" {
		t.Scenario = ""
	}
	for _, s := range f[3:] {
		m, err := ParseMember(s)
		if err != nil {
			return Team{}, err
		}
		t.Members = append(t.Members, m)
	}
	return t, t.check(nil)
}

// Of is the team the trainee is a member of, the one formed last; false for none.
func (all Teams) Of(trainee string) (Team, bool) {
	for _, t := range slices.Backward(all) {
		if _, ok := t.Member(trainee); ok {
			return t, true
		}
	}
	return Team{}, false
}

// FormTeam adds the team to the file at path, each member an enrolled trainee of enrolled in one
// of roles (session.TeamRolesFor its case); a running server reads it at its next connection.
// `ward team` and the instructor's board both form teams here.
func FormTeam(path string, t Team, enrolled Enrolments, roles []string) error {
	if err := t.check(roles); err != nil {
		return err
	}
	if slices.ContainsFunc(enrolled, func(e Enrolment) bool { return e.Name == t.Trainee() }) {
		return fmt.Errorf("team %s's shift is stored as %s, the name of an enrolled trainee: choose another team name", t.Name, t.Trainee())
	}
	for _, m := range t.Members {
		if !slices.ContainsFunc(enrolled, func(e Enrolment) bool { return e.Name == m.Name && !e.Instructor }) {
			return fmt.Errorf("%s is not an enrolled trainee: ward enrol %s --key FILE first", m.Name, m.Name)
		}
	}
	if _, err := ReadTeams(path); err != nil {
		return err
	}
	f, err := outfile.OpenLog(path)
	if err != nil {
		return err
	}
	_, err = f.WriteString(t.line())
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// teamOf is the team the connection's trainee is in, read afresh; false for none.
func (s *Server) teamOf(name string) (Team, bool, error) {
	if s.cfg.Teams == "" {
		return Team{}, false, nil
	}
	all, err := ReadTeams(s.cfg.Teams)
	if err != nil {
		s.logf("no team can connect: %v", err)
		return Team{}, false, refusal{"ward: the server cannot read its teams; tell the instructor", err.Error()}
	}
	t, ok := all.Of(name)
	return t, ok, nil
}

// teamShift is a team's one shift while any member is connected.
type teamShift struct {
	team  Team
	live  *live.Live
	view  *persist.Store
	conns int // members' connections holding it
}

// joinTeam is the team's running shift, opened (its latest shift resumed, or one started with
// its case) for the first member to connect, through member, the member's own view: in an
// encrypted database the team's key opens through theirs, and a member joining the running
// shift gets it boxed for them (persist.TeamAs, ShareTeam).
func (s *Server) joinTeam(t Team, member *persist.Store) (*teamShift, error) {
	s.teamsMu.Lock()
	defer s.teamsMu.Unlock()
	if ts := s.teams[t.Name]; ts != nil {
		if err := ts.view.ShareTeam(member); err != nil {
			return nil, err
		}
		ts.team = t // the members' roles as formed last
		ts.conns++
		return ts, nil
	}
	view, err := member.TeamAs(t.Trainee())
	if errors.Is(err, persist.ErrNoAccess) {
		return nil, fmt.Errorf("team %s's shift opens with the keys of the members who have joined it: connect while one of them is in it (%w)", t.Name, err)
	}
	if err != nil {
		return nil, err
	}
	l, err := s.openTeamLive(t, view)
	if err != nil {
		view.Close()
		return nil, err
	}
	ts := &teamShift{team: t, live: l, view: view, conns: 1}
	s.teams[t.Name] = ts
	return ts, nil
}

// openTeamLive resumes the team's latest shift, or starts one: the server's --shift, or the
// team's case admitted. A new one starts with its clock paused, so no sim time passes while the
// team gathers: the leader starts it (/pause).
func (s *Server) openTeamLive(t Team, view *persist.Store) (*live.Live, error) {
	ctx := context.Background()
	setup := s.cfg.Setup.ForTrainee(view, s.cfg.Backend(t.Trainee()))
	sess, resumed, err := setup.Resume(ctx)
	fresh := err == nil && (!resumed || len(sess.Summaries()) == 0)
	if fresh {
		shift := s.cfg.Shift
		if t.Scenario != "" {
			shift = ""
		}
		sess, err = setup.Start(ctx, shift)
	}
	if err != nil {
		return nil, err
	}
	l := live.NewLive(sess, func(string, string) (*session.Session, error) {
		return nil, errors.New("a team's shift is started by the instructor (ward team)")
	})
	l.OnPanic(func(v any, stack []byte) { s.panicked(persist.Person{Trainee: t.Trainee()}, "a team's turn", v, stack) })
	if !fresh {
		return l, nil
	}
	start := []string{"/pause"}
	if t.Scenario != "" {
		start = append(start, "/admit patient_1 "+t.Scenario)
	}
	for _, line := range start {
		for u := range l.Submit(ctx, line) {
			if u.Kind == live.UpdateError {
				return nil, fmt.Errorf("team %s's shift: %s: %s", t.Name, line, u.Text)
			}
		}
	}
	return l, nil
}

// leaveTeam lets a member's connection go; the last one out saves the shift and closes it,
// before a member connecting next can resume it.
func (s *Server) leaveTeam(ts *teamShift) {
	s.teamsMu.Lock()
	defer s.teamsMu.Unlock()
	if ts.conns--; ts.conns > 0 {
		return
	}
	delete(s.teams, ts.team.Name)
	_ = ts.live.Close()
	ts.view.Close()
}

// openTeamShift is a member's screen on their team's shift, opened through view, their own:
// their lines are theirs, in their role (session.TeamTurn).
func (s *Server) openTeamShift(c *conn, view *persist.Store, t Team) (*shift, ui.Options, error) {
	opts := ui.Options{Theme: s.cfg.Theme, Trainee: c.who.Name, TraineeFixed: true, Clipboard: c.sess, Confined: true,
		SaveDir: filepath.Join(s.store.Path()+".exports", c.who.Name)}
	if err := os.MkdirAll(opts.SaveDir, 0o700); err != nil {
		return nil, opts, err
	}
	me, _ := t.Member(c.who.Name)
	ts, err := s.joinTeam(t, view)
	if err != nil {
		return nil, opts, err
	}
	opts.Notice = strings.TrimSuffix(fmt.Sprintf("team %s: you are %s%s; the leader starts and stops the clock (/pause); %s",
		t.Name, me, s.roleDoes(t, me.Role), s.cfg.Notice), "; ")
	sh := &shift{Live: ts.live, srv: s, who: c.who.person(), gone: make(chan struct{}), member: &me, team: ts,
		release: func() { s.leaveTeam(ts) }}
	return sh, opts, nil
}

// roleDoes is what a role the team's case names does, for the member given it: ", who …"; "" for
// the roles every team has.
func (s *Server) roleDoes(t Team, role string) string {
	sc, ok := s.cfg.Setup.Library().Get(t.Scenario)
	if !ok {
		return ""
	}
	for _, r := range sc.TeamRoles {
		if r.Name == role {
			return ", who " + r.Does
		}
	}
	return ""
}

// members is the team as it was formed last, for a member's turn.
func (s *Server) members(ts *teamShift) []session.Member {
	s.teamsMu.Lock()
	defer s.teamsMu.Unlock()
	return slices.Clone(ts.team.Members)
}

// The instructor's board forms teams as `ward team` does.
var _ board.Teams = boardTeams{}

// boardTeams forms teams on the instructor's board: from the enrolled trainees and the server's
// case library, read afresh, through FormTeam.
type boardTeams struct{ s *Server }

// Enrolled are the enrolled trainees, each once, sorted, with the team each is in now.
func (b boardTeams) Enrolled() ([]board.Enrolled, error) {
	all, err := ReadEnrolments(b.s.cfg.Keys)
	if err != nil {
		return nil, err
	}
	teams, err := ReadTeams(b.s.cfg.Teams)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range all {
		if !e.Instructor {
			names = append(names, e.Name)
		}
	}
	slices.Sort(names)
	var out []board.Enrolled
	for _, name := range slices.Compact(names) {
		t, _ := teams.Of(name)
		out = append(out, board.Enrolled{Name: name, Team: t.Name})
	}
	return out, nil
}

// Cases are the IDs of the server's scenarios.
func (b boardTeams) Cases() []string {
	var ids []string
	for _, sc := range b.s.cfg.Setup.Library().List() {
		ids = append(ids, sc.ID)
	}
	return ids
}

// Roles are those a member of a team of the case may have.
func (b boardTeams) Roles(scenario string) ([]string, error) {
	return session.TeamRolesFor(b.s.cfg.Setup.Library(), scenario)
}

// Form forms the team, as `ward team` does.
func (b boardTeams) Form(name, scenario string, members []session.Member) error {
	if b.s.cfg.Teams == "" {
		return errors.New("this server keeps no teams")
	}
	roles, err := b.Roles(scenario)
	if err != nil {
		return err
	}
	enrolled, err := ReadEnrolments(b.s.cfg.Keys)
	if err != nil {
		return err
	}
	return FormTeam(b.s.cfg.Teams, Team{Name: name, Scenario: scenario, Members: members}, enrolled, roles)
}
