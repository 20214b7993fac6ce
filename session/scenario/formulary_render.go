package scenario

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteFormulary writes entries as `ward formulary` shows them: per drug its
// strengths, a table of routes (usual dose, maximum single dose, maximum in
// all, shortest repeat interval), the notes per route, what an overdose
// does, the source, and what a partial entry leaves out; then the sources
// the entries cite by abbreviation.
func WriteFormulary(w io.Writer, entries []*DrugDoses) error {
	for _, e := range entries {
		if err := writeEntry(w, e); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	sources := formulary().sources
	var cited []string
	for abbr := range sources {
		if slices.ContainsFunc(entries, func(e *DrugDoses) bool { return e.cites(abbr) }) {
			cited = append(cited, abbr)
		}
	}
	if len(cited) == 0 {
		return nil
	}
	slices.Sort(cited)
	fmt.Fprintln(w, "sources")
	for _, abbr := range cited {
		fmt.Fprintf(w, "  %s: %s\n", abbr, sources[abbr])
	}
	return nil
}

// cites reports whether the entry's sources, its children's included, cite abbr.
func (e *DrugDoses) cites(abbr string) bool {
	return citesSource(e.Source, abbr) || citesSource(e.ChildSource, abbr)
}

// citesSource reports whether a source line cites abbr as a word.
func citesSource(source, abbr string) bool {
	return slices.Contains(strings.FieldsFunc(source, func(r rune) bool { return r == ' ' || r == ';' || r == ',' }), abbr)
}

func writeEntry(w io.Writer, e *DrugDoses) error {
	title := e.Name
	if e.Name != e.Drug {
		title += " (" + e.Drug + ")"
	}
	fmt.Fprintln(w, title)
	if len(e.Strengths) > 0 {
		fmt.Fprintf(w, "  strengths: %s\n", strings.Join(labels(e.Strengths), ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  route\tusual\tmax single\tmax in all\trepeat after\tonset\tpeak\tduration")
	for i := range e.Routes {
		r := &e.Routes[i]
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Route, e.usualColumn(r), e.maxColumn(r.Max, r.ToEffect),
			e.totalColumn(r), repeatColumn(r.Repeat), durationText(r.Timing.Onset), durationText(r.Timing.Peak),
			durationText(r.Timing.Duration))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := e.writeChildren(w); err != nil {
		return err
	}
	for _, r := range e.Routes {
		if note := routeNote(r); note != "" {
			fmt.Fprintf(w, "  %s: %s\n", r.Route, note)
		}
	}
	for _, line := range []struct{ label, text string }{
		{"overdose", e.Toxicity}, {"source", e.Source}, {"partial", e.Partial},
	} {
		if line.text != "" {
			fmt.Fprintf(w, "  %s: %s\n", line.label, line.text)
		}
	}
	return nil
}

func (e *DrugDoses) usualColumn(r *RouteDoses) string {
	if r.ToEffect {
		return "to effect"
	}
	text := e.showRange(r.Usual.Low, r.Usual.High)
	if r.Usual.PerKg {
		text += "/kg"
	}
	return text
}

func (e *DrugDoses) maxColumn(d DoseRange, toEffect bool) string {
	if toEffect || d.High == 0 {
		return "—"
	}
	text := e.show(d.High)
	if d.PerKg {
		text += "/kg"
	}
	return text
}

// writeChildren is a second table, of the children's doses by route and age band, when the entry
// has any.
func (e *DrugDoses) writeChildren(w io.Writer) error {
	if !slices.ContainsFunc(e.Routes, func(r RouteDoses) bool { return len(r.Children) > 0 }) {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  children\tages\tusual\tmax single\tmax in all")
	for _, r := range e.Routes {
		for _, b := range r.Children {
			fmt.Fprintf(tw, "  %s\t%s–%s y\t%s\t%s\t%s\n", r.Route, num(b.FromYears), num(b.ToYears),
				e.usualColumn(&RouteDoses{Usual: b.Usual}), e.capped(b.Max, b.Cap), e.capped(b.Total, b.Cap))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "  children's source: %s\n", e.ChildSource)
	return err
}

// capped is a child's maximum with the cap no weight goes past: "40 mg/kg, ≤ 2 g".
func (e *DrugDoses) capped(d DoseRange, limit float64) string {
	if d.High == 0 {
		return "—"
	}
	text := e.maxColumn(d, false)
	if limit > 0 {
		text += ", ≤ " + e.show(limit)
	}
	return text
}

func (e *DrugDoses) totalColumn(r *RouteDoses) string {
	if r.Total.High == 0 {
		return "—"
	}
	if r.Window == 0 {
		return e.maxColumn(r.Total, false) + " a shift"
	}
	return e.maxColumn(r.Total, false) + " in " + durationText(r.Window)
}

func repeatColumn(s Seconds) string {
	if s == 0 {
		return "—"
	}
	return durationText(s)
}

// routeNote joins what the table has no column for: the situation a route
// is kept for, its strengths, and the note.
func routeNote(r RouteDoses) string {
	var parts []string
	if r.OnlyIn == SituationCardiacArrest {
		parts = append(parts, "cardiac arrest only")
	}
	if r.BolusOnlyIn == SituationCardiacArrest {
		parts = append(parts, "a bolus in cardiac arrest only, by infusion otherwise")
	}
	if len(r.Strengths) > 0 {
		parts = append(parts, strings.Join(labels(r.Strengths), ", "))
	}
	if r.Note != "" {
		parts = append(parts, r.Note)
	}
	return strings.Join(parts, "; ")
}
