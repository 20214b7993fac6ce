package lab

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
)

// A trainee who missed "oxygen" in two cases, whose last shift the instructor ended, connects
// to a class with no --shift: the start dialog offers the next shift drawn from their own
// progress and the class's curriculum, with the reason naming the action, before the built-in
// shifts. Another trainee, with nothing played, is offered no such reason.
func TestTheStartDialogOffersATraineeTheirNextShift(t *testing.T) {
	l := newLab(t, nil, func(c *Config) { c.Shift = "" })
	l.play("alice", "/admit patient_1 asthma-exacerbation\n/vitals\ngive salbutamol 5 mg nebulised\n/wait 10m\n", false)
	l.play("alice", "/admit patient_1 pulmonary-embolism\n/vitals\n/wait 10m\n", true)
	if err := l.store.PutCurriculum([]string{"paediatrics", "eclampsia"}); err != nil {
		t.Fatal(err)
	}
	const reason = `you missed the critical action "oxygen" in 2 case(s)`
	alice, err := dialTerminal(l.addr, "alice", l.enrol("alice", false))
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	if _, err := alice.await("alice's next shift", 20*time.Second, func(lines []string) bool {
		text := dialogText(lines)
		return strings.Contains(text, "Your next shift") && strings.Contains(text, "chosen for you from the curriculum") &&
			strings.Contains(text, reason) && strings.Contains(text, "Back to your last shift")
	}); err != nil {
		t.Fatal(err)
	}
	bob, err := dialTerminal(l.addr, "bob", l.enrol("bob", false))
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	if _, err := bob.await("bob's start dialog", 20*time.Second, func(lines []string) bool {
		text := dialogText(lines)
		return strings.Contains(text, "Start a shift") && strings.Contains(text, "Your next shift") && !strings.Contains(text, `"oxygen"`)
	}); err != nil {
		t.Fatal(err)
	}
}

// play runs lines as trainee's own headless shift on a view of theirs, as `ward run --new`
// does; end ends the shift afterwards, as the instructor's End does.
func (l *testLab) play(trainee, lines string, end bool) {
	l.t.Helper()
	view, err := l.store.As(persist.Person{Trainee: trainee}, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	defer view.Close()
	sess, err := l.setup.ForTrainee(view, l.setup.Backend()).Start(context.Background(), "")
	if err != nil {
		l.t.Fatal(err)
	}
	var out strings.Builder
	if err := sess.RunLines(context.Background(), strings.NewReader(lines), &out); err != nil {
		l.t.Fatalf("%v\n%s", err, out.String())
	}
	if end {
		if err := sess.End(func(session.Event) {}); err != nil {
			l.t.Fatal(err)
		}
	}
}

// dialogText is the screen's words in reading order, the dialog's borders and line breaks
// aside, so a reason wrapped over lines reads whole.
func dialogText(lines []string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("│", " ", "┃", " ", "║", " ").Replace(strings.Join(lines, " "))), " ")
}
