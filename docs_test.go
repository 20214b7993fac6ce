package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/ui"
)

// guides are the docs a newcomer reads: what they name must exist, and what they count must be
// the code's count.
var guides = []string{"README.md", "docs/trainee.md", "docs/instructor.md", "docs/developer.md", "docs/reference.md"}

func readGuide(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The README is the front door: short, and it shows the two commands CI and a newcomer run.
func TestTheREADMEIsAShortFrontDoor(t *testing.T) {
	readme := readGuide(t, "README.md")
	if n := strings.Count(readme, "\n"); n >= 150 {
		t.Errorf("README.md is %d lines; the front door stays under 150 (the rest goes to docs/)", n)
	}
	for _, want := range []string{"```sh\ngo run .\n```", "```sh\ngo test ./...\n```", "go install github.com/ward-sim/ward@latest", "go build -o ward ."} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	gomod := readGuide(t, "go.mod")
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(gomod)
	if goLine == nil || !strings.Contains(readme, "Go "+goLine[1]+" or later") {
		t.Errorf("README.md does not name the Go version of go.mod (%v)", goLine)
	}
	for _, guide := range guides[1:] {
		if !strings.Contains(readme, "("+guide+")") {
			t.Errorf("README.md does not link %s", guide)
		}
	}
}

// counted are the phrases in which the guides state a count, each with the count it must be.
func countedPhrases(t *testing.T) map[*regexp.Regexp]int {
	counts := builtinCounts(t)
	team, err := agents.LoadTeam("")
	if err != nil {
		t.Fatal(err)
	}
	return map[*regexp.Regexp]int{
		regexp.MustCompile(`(\d+) protocol cards`):      counts["protocol cards"],
		regexp.MustCompile(`(\d+) retrieval questions`): counts["retrieval questions"],
		regexp.MustCompile(`(\d+) built-in scenarios`):  counts["scenarios"],
		regexp.MustCompile(`(\d+) built-in shifts`):     counts["shifts"],
		regexp.MustCompile(`one of (\d+) rhythms`):      counts["rhythms"],
		regexp.MustCompile(`ward's (\d+) agents`):       len(team.Agents),
	}
}

// A count in a guide is the code's: a card, a case or an eval question added fails this test
// until the guide says so.
func TestTheGuidesCountWhatTheCodeHolds(t *testing.T) {
	phrases := countedPhrases(t)
	found := map[*regexp.Regexp]bool{}
	for _, path := range guides {
		text := readGuide(t, path)
		for re, want := range phrases {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				found[re] = true
				if got, _ := strconv.Atoi(m[1]); got != want {
					t.Errorf("%s says %q; the code has %d", path, m[0], want)
				}
			}
		}
	}
	for re := range phrases {
		if !found[re] {
			t.Errorf("no guide states /%s/ any more: drop it from this test or put the count back", re)
		}
	}
}

var (
	codeSpan  = regexp.MustCompile("`([^`\n]+)`")
	fenced    = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	wardLine  = regexp.MustCompile(`(?:^|[\s(])((?:ward|go run \.)(?: [^#\n` + "`" + `]*)?)`)
	flagWord  = regexp.MustCompile(`^--?([a-z][a-z0-9-]*)(=.*)?$`)
	slashWord = regexp.MustCompile(`^/[a-z]+$`)
	keyChord  = regexp.MustCompile(`^(?:ctrl|alt|shift)\+\S+$`)
)

// TestTheGuidesNameOnlyWhatExists fails when a guide names a command, a verb, a flag, a slash
// command or a key chord that ward does not have.
func TestTheGuidesNameOnlyWhatExists(t *testing.T) {
	root := commands(&cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	slash := map[string]bool{}
	for _, c := range session.Commands() {
		slash[c.Name] = true
	}
	keys := map[string]bool{}
	for _, g := range ui.KeyHelp() {
		for _, b := range g.Bindings {
			for _, k := range b.Keys() {
				keys[k] = true
			}
		}
	}
	all := allFlags()
	for _, path := range guides {
		text := readGuide(t, path)
		var snippets []string
		for _, m := range fenced.FindAllStringSubmatch(text, -1) {
			for _, l := range strings.Split(m[1], "\n") {
				l, _, _ = strings.Cut(l, " #") // a shell comment is prose
				snippets = append(snippets, l)
			}
		}
		for _, m := range codeSpan.FindAllStringSubmatch(fenced.ReplaceAllString(text, ""), -1) {
			snippets = append(snippets, m[1])
		}
		for _, s := range snippets {
			for _, m := range wardLine.FindAllStringSubmatch(s, -1) {
				for _, problem := range checkInvocation(root, m[1]) {
					t.Errorf("%s: `%s`: %s", path, m[1], problem)
				}
			}
			words := strings.Fields(s)
			if len(words) == 0 {
				continue
			}
			first := words[0]
			switch {
			case flagWord.MatchString(first) && strings.HasPrefix(first, "--"):
				if name := flagWord.FindStringSubmatch(first)[1]; all.Lookup(name) == nil && name != "help" {
					t.Errorf("%s: `%s`: no command of ward has --%s", path, s, name)
				}
			case slashWord.MatchString(first) && !slash[first]:
				t.Errorf("%s: `%s`: %s is not a slash command", path, s, first)
			case keyChord.MatchString(first) && len(words) == 1 && !keys[first] && !keyRange(first, keys):
				t.Errorf("%s: `%s`: the TUI binds no key %s", path, s, first)
			}
		}
	}
}

var (
	heading = regexp.MustCompile(`(?m)^#+ (.+)$`)
	link    = regexp.MustCompile(`\]\(([a-zA-Z./]*\.md)?(?:#([^)]+))?\)`)
)

// anchor is the id GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens.
func anchor(h string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			return unicode.ToLower(r)
		}
		return -1
	}, h)
}

// TestTheGuidesLinksArrive fails when a guide links a file that is not there or a heading that
// its file does not have.
func TestTheGuidesLinksArrive(t *testing.T) {
	for _, path := range guides {
		for _, m := range link.FindAllStringSubmatch(readGuide(t, path), -1) {
			target := path
			if m[1] != "" {
				target = filepath.Join(filepath.Dir(path), m[1])
			}
			text, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s links %s: %v", path, m[0], err)
				continue
			}
			if m[2] == "" {
				continue
			}
			found := false
			for _, h := range heading.FindAllStringSubmatch(string(text), -1) {
				found = found || anchor(h[1]) == m[2]
			}
			if !found {
				t.Errorf("%s links %s: %s has no such heading", path, m[0], target)
			}
		}
	}
}

// keyRange accepts a range (alt+1…9) or a placeholder (alt+N) when its first key is bound.
func keyRange(k string, keys map[string]bool) bool {
	if first, _, ok := strings.Cut(k, "…"); ok {
		return keys[first]
	}
	chord, ok := strings.CutSuffix(k, "+N")
	return ok && keys[chord+"+1"]
}

// checkInvocation says what is wrong with a command line a guide shows: a command or verb ward
// lacks, or a flag the command does not take. Placeholders (ID, FILE), values and alternatives
// written a|b are read as a synopsis writes them.
func checkInvocation(root *cobra.Command, line string) []string {
	line = strings.TrimPrefix(line, "go run .")
	line = strings.TrimPrefix(strings.TrimPrefix(line, "ward"), " ")
	if line != "" && !strings.HasPrefix(line, "-") && (line[0] < 'a' || line[0] > 'z') {
		return nil // prose that starts with the word ward ("ward's", "ward: ...")
	}
	var args []string
	for _, w := range strings.Fields(strings.NewReplacer("[", " ", "]", " ", "|", " | ").Replace(line)) {
		if w == "|" {
			break // one synopsis per alternative: the first is checked
		}
		args = append(args, strings.TrimRight(w, ".,;:"))
	}
	args, name := commandFirst(args)
	cmd := root
	if name != "" {
		found, _, err := root.Find([]string{name})
		if err != nil || found == root {
			if strings.ToLower(name) == name && !strings.ContainsAny(name, "./=") {
				return []string{fmt.Sprintf("ward has no command %q", name)}
			}
			return nil // a placeholder or a path, not a command
		}
		cmd = found
		args = args[1:]
	}
	var problems []string
	for i, a := range args {
		if cmd.HasSubCommands() && !strings.HasPrefix(a, "-") {
			if (i == 0 || !takesValue(cmd, args[i-1])) && strings.ToLower(a) == a {
				verb, _, err := cmd.Find([]string{a})
				if err != nil || verb == cmd {
					problems = append(problems, fmt.Sprintf("%s has no verb %q", cmd.CommandPath(), a))
					continue
				}
				cmd = verb
			}
			continue
		}
		if m := flagWord.FindStringSubmatch(a); m != nil && cmd.Flags().Lookup(m[1]) == nil && m[1] != "help" {
			problems = append(problems, fmt.Sprintf("%s takes no --%s", cmd.CommandPath(), m[1]))
		}
	}
	return problems
}

// takesValue reports whether word is a flag of cmd that reads the next argument as its value.
func takesValue(cmd *cobra.Command, word string) bool {
	m := flagWord.FindStringSubmatch(word)
	if m == nil || m[2] != "" {
		return false
	}
	f := cmd.Flags().Lookup(m[1])
	return f != nil && f.NoOptDefVal == ""
}
