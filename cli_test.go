package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every command and every sub-verb answers --help, and `ward help` of its path, with its own
// synopsis, summary and flags, and no two say the same.
func TestEveryCommandAndVerbHasItsOwnHelp(t *testing.T) {
	root := commands(&cli{})
	var all []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	seen := map[string]string{}
	for _, c := range all {
		path := strings.Fields(c.CommandPath())[1:]
		out, err := ward(t, "", append(path, "--help")...)
		synopsis := "usage: " + c.CommandPath() + " [flags]"
		if err != nil || !strings.HasPrefix(out, synopsis) || !strings.Contains(out, "\n"+c.Short+"\n") {
			t.Errorf("%q --help: %v; want %q and %q:\n%s", path, err, synopsis, c.Short, out)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && !strings.Contains(out, "--"+f.Name) {
				t.Errorf("%q --help lacks its flag --%s", path, f.Name)
			}
		})
		if other, dup := seen[out]; dup {
			t.Errorf("%q --help says the same as %q", path, other)
		}
		seen[out] = c.CommandPath()
		if via, err := ward(t, "", append([]string{"help"}, path...)...); err != nil || via != out {
			t.Errorf("ward help %q differs from --help: %v", path, err)
		}
	}
	if len(all) < 30 {
		t.Fatalf("only %d commands and verbs", len(all))
	}
}

// A sub-verb checks its own arguments and flags, and says its own usage.
func TestVerbsCheckTheirArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"archive", "show"}, "usage: ward archive show N — see ward archive show --help"},
		{[]string{"archive", "frob"}, "usage: ward archive list | show N | restore N — see ward archive --help"},
		{[]string{"archive", "list", "extra"}, `unexpected argument "extra" — see ward archive list --help`},
		{[]string{"kb", "search"}, "usage: ward kb search QUERY... — see ward kb search --help"},
		{[]string{"kb", "list", "--embed-model", "m"}, "unknown flag --embed-model — see ward kb list --help"},
		{[]string{"scenarios", "validate"}, "usage: ward scenarios validate FILE... — see ward scenarios validate --help"},
		{[]string{"eval"}, "usage: ward eval delta | analyzer | patient | debrief | arrest | knowledge — see ward eval --help"},
		{[]string{"eval", "frob"}, "usage: ward eval delta | analyzer | patient | debrief | arrest | knowledge — see ward eval --help"},
		{[]string{"eval", "delta", "--format", "csv", "--backend", "offline"}, `--format must be text, md or json, not "csv"`},
		{[]string{"formulary", "a", "b"}, "usage: ward formulary [DRUG] — see ward formulary --help"},
		{[]string{"diff", "a"}, "usage: ward diff TRACE_A TRACE_B — see ward diff --help"},
	} {
		_, err := ward(t, "", tc.args...)
		if exitCode(err) != 2 || err.Error() != tc.want {
			t.Errorf("%q: exit %d, %v; want 2 and %q", tc.args, exitCode(err), err, tc.want)
		}
	}
}

// commandFirst moves the command's name to the front and keeps every other argument but a "--"
// before it; single-dash long flags become double-dash ones.
func FuzzCommandFirst(f *testing.F) {
	f.Add("--db\x00x.db\x00dump")
	f.Add("-db=x\x00archive\x00show\x003")
	f.Add("--new\x00run\x00--backend\x00offline")
	f.Add("--\x00stats\x00--json")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		got, name := commandFirst(args)
		if name != "" && got[0] != name {
			t.Fatalf("%q: %q does not start with %q", args, got, name)
		}
		flags := allFlags()
		count := map[string]int{}
		for _, a := range args {
			count[doubleDash(a, flags)]++
		}
		for _, a := range got {
			count[a]--
		}
		for a, n := range count {
			if n < 0 || n > 0 && (a != "--" || n > 1) {
				t.Fatalf("%q became %q: %q is there %d times too few", args, got, a, n)
			}
		}
	})
}
