package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/ui"
)

//go:generate go test -run TestReferenceIsCurrent -update-reference .

var updateReference = flag.Bool("update-reference", false, "rewrite the generated parts of docs/reference.md from the code")

const referencePath = "docs/reference.md"

// The reference's generated parts sit between these markers; what is outside them is written by
// hand, so a new section of prose never fights the generator.
var generatedPart = regexp.MustCompile(`(?s)(<!-- BEGIN generated: ([a-z-]+) -->\n).*?(<!-- END generated -->)`)

// TestReferenceIsCurrent fails when docs/reference.md's commands, flags, slash commands, keys or
// counts are not what the code declares; `go generate .` (this test with -update-reference)
// rewrites them.
func TestReferenceIsCurrent(t *testing.T) {
	parts := referenceParts(t)
	old, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	current := generatedPart.ReplaceAllStringFunc(string(old), func(block string) string {
		m := generatedPart.FindStringSubmatch(block)
		body, ok := parts[m[2]]
		if !ok {
			t.Errorf("%s has a generated part %q the generator does not know", referencePath, m[2])
			return block
		}
		seen[m[2]] = true
		return m[1] + body + m[3]
	})
	for name := range parts {
		if !seen[name] {
			t.Errorf("%s lacks the generated part %q (<!-- BEGIN generated: %s --> … <!-- END generated -->)", referencePath, name, name)
		}
	}
	if current == string(old) {
		return
	}
	if *updateReference {
		if err := os.WriteFile(referencePath, []byte(current), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is not current: run `go generate .` and commit it", referencePath)
}

// referenceParts renders each generated part of the reference from the code. The flags' defaults
// that follow the machine (the login name, the home directory in the database's path) are
// written as their rule.
func referenceParts(t *testing.T) map[string]string {
	t.Helper()
	for _, env := range []string{"WARD_DB", "XDG_DATA_HOME", "WARD_MODEL", "WARD_BELL"} {
		t.Setenv(env, "")
	}
	home, _ := os.UserHomeDir()
	machine := func(def string) string {
		switch {
		case def == persist.LoginName():
			return "your login name"
		case home != "" && strings.HasPrefix(def, home+string(os.PathSeparator)):
			return "~" + def[len(home):]
		}
		return def
	}
	root := commands(&cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	var cmds strings.Builder
	writeCommand(&cmds, root, machine)
	return map[string]string{
		"commands":       cmds.String(),
		"slash-commands": session.HelpTable() + "\n",
		"keys":           keysTable(),
		"counts":         countsTable(t),
	}
}

// writeCommand writes a command, then each of its verbs, as a heading, its summary and a table
// of its flags.
func writeCommand(b *strings.Builder, cmd *cobra.Command, machine func(string) string) {
	fmt.Fprintf(b, "### `%s`\n\n%s\n\n", strings.TrimSpace(cmd.CommandPath()+" "+argsOf(cmd)), cmd.Short)
	var rows []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		kind, usage := pflag.UnquoteUsage(f)
		name := "--" + f.Name
		if kind != "" && f.NoOptDefVal == "" {
			name += " " + strings.ToUpper(kind)
		}
		def := f.DefValue
		if def == "" || def == "false" || def == "0" {
			def = "—"
		}
		cell := strings.NewReplacer("|", `\|`).Replace
		rows = append(rows, fmt.Sprintf("| %#q | %s | %s |", name, cell(usage), cell(machine(def))))
	})
	if len(rows) > 0 {
		fmt.Fprintf(b, "| flag | meaning | default |\n| --- | --- | --- |\n%s\n\n", strings.Join(rows, "\n"))
	}
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			writeCommand(b, sub, machine)
		}
	}
}

// keysTable is the TUI's help overlay as tables, group by group.
func keysTable() string {
	var b strings.Builder
	for _, g := range ui.KeyHelp() {
		fmt.Fprintf(&b, "**%s**\n\n| key | does |\n| --- | --- |\n", g.Title)
		for _, k := range g.Bindings {
			fmt.Fprintf(&b, "| `%s` | %s |\n", k.Help().Key, k.Help().Desc)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// builtinCounts are the counts the docs may state, read from the code.
func builtinCounts(t *testing.T) map[string]int {
	t.Helper()
	cards, err := knowledge.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	questions, err := knowledge.EvalQuestions()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]int{
		"protocol cards":      len(cards),
		"retrieval questions": len(questions),
		"scenarios":           len(lib.List()),
		"shifts":              len(lib.Shifts()),
		"rhythms":             len(scenario.Rhythms),
		"slash commands":      len(session.Commands()),
	}
}

// countsTable is what ward carries built in, counted.
func countsTable(t *testing.T) string {
	counts := builtinCounts(t)
	var b strings.Builder
	b.WriteString("| built in | count |\n| --- | --- |\n")
	for _, name := range []string{"scenarios", "shifts", "protocol cards", "retrieval questions", "rhythms", "slash commands"} {
		fmt.Fprintf(&b, "| %s | %d |\n", name, counts[name])
	}
	return b.String()
}
