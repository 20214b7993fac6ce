package scenario

import (
	"fmt"
	"slices"
	"strings"
)

// Curriculum is the cases a class's curriculum holds: each entry is a case's id or a domain (a
// tag the library's cases carry, such as "obstetrics"), which stands for every case tagged with
// it. The cases come in library order, each once. An entry that is neither is an error naming
// it, and where to find the names that are.
func (l *Library) Curriculum(entries []string) ([]string, error) {
	in := map[string]bool{}
	var unknown []string
	for _, e := range entries {
		if _, ok := l.Get(e); ok {
			in[e] = true
			continue
		}
		domain := l.matching([]string{e}, "")
		if len(domain) == 0 {
			unknown = append(unknown, fmt.Sprintf("%q", e))
		}
		for _, id := range domain {
			in[id] = true
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("no case or domain is named %s: a curriculum names case ids (ward scenarios list) or domains (%s)",
			strings.Join(unknown, ", "), strings.Join(l.Domains(), ", "))
	}
	var out []string
	for _, s := range l.List() {
		if in[s.ID] {
			out = append(out, s.ID)
		}
	}
	return out, nil
}

// Domains are the tags the library's cases carry, each once, in order.
func (l *Library) Domains() []string {
	var out []string
	for _, s := range l.List() {
		out = append(out, s.Tags...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
