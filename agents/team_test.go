package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
)

func mustTeam(t testing.TB) *Team {
	t.Helper()
	team, err := LoadTeam("")
	if err != nil {
		t.Fatal(err)
	}
	return team
}

func TestTeamBuiltinDefinitions(t *testing.T) {
	team := mustTeam(t)
	want := []string{AgentOrchestrator, AgentPatient, AgentMonitor, AgentPharmacist, AgentPreceptor}
	if got := team.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("agents = %v, want %v", got, want)
	}
	if team.MaxMessages != DefaultMaxMessages {
		t.Errorf("MaxMessages = %d, want %d", team.MaxMessages, DefaultMaxMessages)
	}
	for _, a := range team.Agents {
		if a.Role == "" || a.Instructions == "" {
			t.Errorf("%s has no role or instructions", a.Name)
		}
	}
	monitor, _ := team.Agent("monitor")
	if len(monitor.Tools) != 1 || monitor.Tools[0] != "check_vitals" {
		t.Errorf("Monitor tools = %v, want [check_vitals]", monitor.Tools)
	}
	patient, _ := team.Agent(AgentPatient)
	if patient.SeesEntities() || patient.SeesMemory(memory.Assessments) {
		t.Error("the Patient must not see entities or the trainee's assessments")
	}
	preceptor, _ := team.Agent(AgentPreceptor)
	for _, c := range memory.Categories {
		if !preceptor.SeesMemory(c) {
			t.Errorf("Preceptor does not see %s", c)
		}
	}
	if name, ok := team.CommandAgent("/aar 5m"); !ok || name != AgentPreceptor {
		t.Errorf("/aar → %q %v, want Preceptor", name, ok)
	}
}

func TestTeamOverrideFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents.yaml")
	override := `max_messages_per_turn: 3
agents:
  - name: patient
    instructions: Speak only Welsh.
  - name: Radiology
    role: Reads imaging.
    instructions: Describe only the images you are given.
    commands: [/xray]
`
	if err := os.WriteFile(path, []byte(override), 0o600); err != nil {
		t.Fatal(err)
	}
	team, err := LoadTeam(path)
	if err != nil {
		t.Fatal(err)
	}
	if team.MaxMessages != 3 {
		t.Errorf("MaxMessages = %d, want 3", team.MaxMessages)
	}
	patient, _ := team.Agent(AgentPatient)
	if patient.Instructions != "Speak only Welsh." || patient.Role == "" || patient.Entities != EntitiesNone {
		t.Errorf("Patient overlay = %+v: instructions replaced, the rest kept", patient)
	}
	radiology, ok := team.Agent("radiology")
	if !ok || radiology.Entities != EntitiesScoped {
		t.Fatalf("Radiology = %+v, %v: added with scoped entities by default", radiology, ok)
	}
	if name, _ := team.CommandAgent("/xray"); name != "Radiology" {
		t.Errorf("/xray → %q", name)
	}
	if len(team.Agents) != 6 {
		t.Errorf("%d agents, want the 5 built-in plus Radiology", len(team.Agents))
	}
}

func TestTeamRejectsBadDefinitions(t *testing.T) {
	base := func() teamFile {
		f, err := parseTeamFile(builtinTeam, "built-in")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		name   string
		change func(*teamFile)
		want   string
	}{
		{"no orchestrator", func(f *teamFile) { f.Agents = f.Agents[1:] }, "needs an agent named Orchestrator"},
		{"duplicate", func(f *teamFile) { f.Agents = append(f.Agents, f.Agents[1]) }, "defined twice"},
		{"two words", func(f *teamFile) { f.Agents[2].Name = "Bed Monitor" }, "one word"},
		{"no instructions", func(f *teamFile) { f.Agents[3].Instructions = " " }, "no instructions"},
		{"memory category", func(f *teamFile) { f.Agents[2].Memory = []string{"labs"} }, `unknown memory category "labs"`},
		{"command twice", func(f *teamFile) { f.Agents[2].Commands = []string{"/aar"} }, "claimed by both"},
		{"command slash", func(f *teamFile) { f.Agents[2].Commands = []string{"vitals"} }, "must start with /"},
		{"entities", func(f *teamFile) { f.Agents[2].Entities = "all" }, "entities must be"},
		{"negative cap", func(f *teamFile) { f.MaxMessages = -1 }, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base()
			tt.change(&f)
			_, err := newTeam(f, "test.yaml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestTeamOverrideFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadTeam(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing override file must be an error")
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("agents: [name: {"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTeam(bad); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("err = %v, want a YAML error naming the file", err)
	}
}

// Every agent's prompt opens with the same bytes, so a server with one cache slot keeps that much
// whichever agent spoke last.
func TestAgentsShareTheirOpening(t *testing.T) {
	team := mustTeam(t)
	shared := FactsInstructions + "\n\n" + DeltaOutputInstructions
	for _, a := range team.Agents {
		if !strings.HasPrefix(a.SystemText(), shared) {
			t.Errorf("%s's system text does not open with the shared part", a.Name)
		}
	}
}
