package agents

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// The built-in agents. Every team has the first two: routing falls back to
// the Orchestrator and sends bedside talk to the Patient.
const (
	AgentOrchestrator = "Orchestrator"
	AgentPatient      = "Patient"
	AgentMonitor      = "Monitor"
	AgentPharmacist   = "Pharmacist"
	AgentPreceptor    = "Preceptor"
)

// DefaultMaxMessages caps agent messages in one turn when the file does not.
const DefaultMaxMessages = 6

//go:embed agents.yaml
var builtinTeam []byte

// Entity visibility values of Agent.Entities.
const (
	EntitiesScoped = "scoped" // conversation entities plus the agent's own derived entities
	EntitiesNone   = "none"
)

// memoryAll in Agent.Memory means every memory category.
const memoryAll = "all"

// Agent is one member of the team as agents.yaml defines it. The session
// builds the agent's prompt from it: Instructions in the static prefix, the
// memory categories and entities it sees in the dynamic context.
type Agent struct {
	Name         string   `yaml:"name"`
	Role         string   `yaml:"role"`
	Instructions string   `yaml:"instructions"`
	Tools        []string `yaml:"tools"`
	Commands     []string `yaml:"commands"`
	Memory       []string `yaml:"memory"`
	Entities     string   `yaml:"entities"`
}

// SeesMemory reports whether category c is recalled into this agent's prompt.
func (a Agent) SeesMemory(c memory.Category) bool {
	return slices.Contains(a.Memory, memoryAll) || slices.Contains(a.Memory, string(c))
}

// SystemText is the agent's static system text: what every agent shares first (how to read the
// facts, the output format), then its own instructions. The shared part is a prefix common to
// every agent's prompt, so a server with one cache slot keeps it across agents.
func (a Agent) SystemText() string {
	return FactsInstructions + "\n\n" + DeltaOutputInstructions + "\n\n" + a.Instructions
}

// SeesEntities reports whether the agent's prompt carries entities: all the
// conversation entities plus its own derived ones, never another agent's.
func (a Agent) SeesEntities() bool { return a.Entities == EntitiesScoped }

// Team is the loaded agent definitions plus the turn policy. Router is the
// backend asked to route messages the rules cannot place; nil means no model,
// and those messages go to the Orchestrator with source "fallback".
// MaxMessages and Router may be set after LoadTeam; Agents is read-only.
type Team struct {
	Agents      []Agent
	MaxMessages int
	Router      llm.Backend

	routerPrompt string
	names        *regexp.Regexp // any agent name as written (capitalised), for plan steps
	namesAnyCase *regexp.Regexp
}

type teamFile struct {
	MaxMessages int     `yaml:"max_messages_per_turn"`
	Router      string  `yaml:"router"`
	Agents      []Agent `yaml:"agents"`
}

// LoadTeam reads the built-in team and, when overridePath is not empty, lays
// the user's file over it: an agent named there replaces the built-in fields
// it sets, a new name adds an agent, and a top-level setting replaces ours.
func LoadTeam(overridePath string) (*Team, error) {
	base, err := parseTeamFile(builtinTeam, "built-in agents.yaml")
	if err != nil {
		return nil, err
	}
	if overridePath != "" {
		data, err := os.ReadFile(overridePath)
		if err != nil {
			return nil, fmt.Errorf("agents file: %w", err)
		}
		over, err := parseTeamFile(data, overridePath)
		if err != nil {
			return nil, err
		}
		base = overlayTeam(base, over)
	}
	return newTeam(base, overridePath)
}

func parseTeamFile(data []byte, name string) (teamFile, error) {
	var f teamFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return teamFile{}, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// overlayTeam applies over to base. Only the fields the user wrote replace
// ours, so a file that changes one agent's instructions is one entry long.
func overlayTeam(base, over teamFile) teamFile {
	if over.MaxMessages != 0 {
		base.MaxMessages = over.MaxMessages
	}
	if over.Router != "" {
		base.Router = over.Router
	}
	for _, o := range over.Agents {
		i := slices.IndexFunc(base.Agents, func(a Agent) bool { return strings.EqualFold(a.Name, o.Name) })
		if i < 0 {
			base.Agents = append(base.Agents, o)
			continue
		}
		base.Agents[i] = overlayAgent(base.Agents[i], o)
	}
	return base
}

func overlayAgent(a, o Agent) Agent {
	if o.Role != "" {
		a.Role = o.Role
	}
	if o.Instructions != "" {
		a.Instructions = o.Instructions
	}
	if o.Tools != nil {
		a.Tools = o.Tools
	}
	if o.Commands != nil {
		a.Commands = o.Commands
	}
	if o.Memory != nil {
		a.Memory = o.Memory
	}
	if o.Entities != "" {
		a.Entities = o.Entities
	}
	return a
}

var agentNamePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

func newTeam(f teamFile, source string) (*Team, error) {
	if source == "" {
		source = "built-in agents.yaml"
	}
	for i := range f.Agents {
		if f.Agents[i].Entities == "" {
			f.Agents[i].Entities = EntitiesScoped // an agent sees entities unless its definition says otherwise
		}
	}
	if f.MaxMessages == 0 {
		f.MaxMessages = DefaultMaxMessages
	}
	if err := validateTeam(f); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	t := &Team{Agents: f.Agents, MaxMessages: f.MaxMessages, routerPrompt: f.Router}
	t.names = namesPattern(t.Names(), "")
	t.namesAnyCase = namesPattern(t.Names(), "(?i)")
	return t, nil
}

// validateTeam rejects what would make routing ambiguous or a prompt
// silently empty, naming the agent at fault.
func validateTeam(f teamFile) error {
	var errs []error
	if f.MaxMessages < 0 {
		errs = append(errs, fmt.Errorf("max_messages_per_turn must be positive, got %d", f.MaxMessages))
	}
	seen := map[string]bool{}
	commands := map[string]string{}
	for _, a := range f.Agents {
		errs = append(errs, validateAgent(a, seen, commands)...)
	}
	for _, required := range []string{AgentOrchestrator, AgentPatient} {
		if !seen[strings.ToLower(required)] {
			errs = append(errs, fmt.Errorf("the team needs an agent named %s", required))
		}
	}
	return errors.Join(errs...)
}

func validateAgent(a Agent, seen map[string]bool, commands map[string]string) []error {
	var errs []error
	key := strings.ToLower(a.Name)
	switch {
	case !agentNamePattern.MatchString(a.Name):
		errs = append(errs, fmt.Errorf("agent name %q must be one word of letters, digits or _", a.Name))
	case seen[key]:
		errs = append(errs, fmt.Errorf("agent %s is defined twice", a.Name))
	}
	seen[key] = true
	if strings.TrimSpace(a.Instructions) == "" {
		errs = append(errs, fmt.Errorf("agent %s has no instructions", a.Name))
	}
	if a.Entities != EntitiesScoped && a.Entities != EntitiesNone {
		errs = append(errs, fmt.Errorf("agent %s: entities must be %q or %q, got %q", a.Name, EntitiesScoped, EntitiesNone, a.Entities))
	}
	for _, m := range a.Memory {
		if m != memoryAll && !slices.Contains(memory.Categories, memory.Category(m)) {
			errs = append(errs, fmt.Errorf("agent %s: unknown memory category %q", a.Name, m))
		}
	}
	for _, tool := range a.Tools {
		if !KnownTool(tool) {
			errs = append(errs, fmt.Errorf("agent %s: unknown tool %q (ward has check_vitals, record_quote, record_assessment)", a.Name, tool))
		}
	}
	for _, c := range a.Commands {
		if !strings.HasPrefix(c, "/") {
			errs = append(errs, fmt.Errorf("agent %s: command %q must start with /", a.Name, c))
		} else if other, taken := commands[strings.ToLower(c)]; taken {
			errs = append(errs, fmt.Errorf("command %s is claimed by both %s and %s", c, other, a.Name))
		}
		commands[strings.ToLower(c)] = a.Name
	}
	return errs
}

// Agent returns the definition of the agent with this exact name, ignoring case.
func (t *Team) Agent(name string) (Agent, bool) {
	for _, a := range t.Agents {
		if strings.EqualFold(a.Name, name) {
			return a, true
		}
	}
	return Agent{}, false
}

// Names lists the agents' names in file order.
func (t *Team) Names() []string {
	names := make([]string, len(t.Agents))
	for i, a := range t.Agents {
		names[i] = a.Name
	}
	return names
}

// resolve finds the agent a trainee or a model called name: the exact name
// ignoring case, else the one agent whose name starts with it.
func (t *Team) resolve(name string) (string, bool) {
	if a, ok := t.Agent(name); ok {
		return a.Name, true
	}
	if name == "" {
		return "", false
	}
	match := ""
	for _, a := range t.Agents {
		if strings.HasPrefix(strings.ToLower(a.Name), strings.ToLower(name)) {
			if match != "" {
				return "", false
			}
			match = a.Name
		}
	}
	return match, match != ""
}

// CommandAgent names the agent that answers a slash command ("/aar 5m"
// → Preceptor). Commands no agent claims are the session's alone.
func (t *Team) CommandAgent(text string) (string, bool) {
	cmd, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	for _, a := range t.Agents {
		for _, c := range a.Commands {
			if strings.EqualFold(c, cmd) {
				return a.Name, true
			}
		}
	}
	return "", false
}
