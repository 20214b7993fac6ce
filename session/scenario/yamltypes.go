package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// Names is a list of alternatives; YAML may give one name or a list.
type Names []string

func (n *Names) UnmarshalYAML(node *yaml.Node) error {
	switch node.Kind {
	case yaml.ScalarNode:
		*n = Names{node.Value}
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := node.Decode(&list); err != nil {
			return err
		}
		*n = list
		return nil
	}
	return typeError(node, "expected a name or a list of names")
}

// Has reports whether s is one of the names.
func (n Names) Has(s string) bool { return slices.Contains(n, s) }

// Seconds is a duration in sim seconds; YAML may give a number of seconds
// or a Go duration such as "90s" or "8m".
type Seconds float64

func (s *Seconds) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.ScalarNode {
		return typeError(node, "expected seconds or a duration like 90s or 5m")
	}
	if f, err := strconv.ParseFloat(node.Value, 64); err == nil {
		*s = Seconds(f)
		return nil
	}
	d, err := time.ParseDuration(node.Value)
	if err != nil {
		return typeError(node, fmt.Sprintf("%q is not seconds or a duration like 90s or 5m", node.Value))
	}
	*s = Seconds(d.Seconds())
	return nil
}

// typeError lets decoding continue and collect further errors, which a plain
// error returned from UnmarshalYAML would stop.
func typeError(node *yaml.Node, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", node.Line, msg)}}
}
