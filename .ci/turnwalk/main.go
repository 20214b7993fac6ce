// turnwalk measures the session package's shape for issue 32: the methods of each type, per file,
// and the walk of a typed line from Session.Turn through the package's own code.
//
// The walk is static: from Session.Turn it follows, in source order, every use of a function or
// method declared in package session (calls and method values alike), expanding each function
// once, depth first, and then from the Speaker's methods (conversation.Speak and Hear), which the
// team calls back through an interface. It skips the slash commands (Session.command), since a
// typed line does not take that branch. "Rooms entered" counts each step of the walk that goes into a function of
// another file than the one it came from; "types" counts steps into another receiver type.
//
//	go run ./.ci/turnwalk            (from the module root)
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "turnwalk:", err)
		os.Exit(1)
	}
}

// exports maps each import path session depends on to its export data, from go list.
func exports() (map[string]string, error) {
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", "./session").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	m := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		m[p.ImportPath] = p.Export
	}
	return m, nil
}

func run() error {
	exp, err := exports()
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	names, _ := filepath.Glob("session/*.go")
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exp[path])
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	pkg, err := (&types.Config{Importer: imp}).Check("github.com/ward-sim/ward/session", fset, files, info)
	if err != nil {
		return err
	}
	decls := map[*types.Func]*ast.FuncDecl{}
	methods := map[string]map[string]int{} // receiver type -> file -> count
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			fn := info.Defs[fd.Name].(*types.Func)
			decls[fn] = fd
			if r := recv(fn); r != "" {
				file := filepath.Base(fset.Position(fd.Pos()).Filename)
				if methods[r] == nil {
					methods[r] = map[string]int{}
				}
				methods[r][file]++
			}
		}
	}
	fmt.Println("methods by receiver (pointer and value), and by file:")
	for _, r := range sortedKeys(methods) {
		total := 0
		var parts []string
		for _, f := range sortedKeys(methods[r]) {
			total += methods[r][f]
			parts = append(parts, fmt.Sprintf("%s %d", f, methods[r][f]))
		}
		fmt.Printf("  %-14s %3d  (%s)\n", r, total, strings.Join(parts, ", "))
	}

	turn := pkg.Scope().Lookup("Session").Type().(*types.Named)
	var start *types.Func
	for i := 0; i < turn.NumMethods(); i++ {
		if turn.Method(i).Name() == "Turn" {
			start = turn.Method(i)
		}
	}
	w := walker{fset: fset, info: info, decls: decls, seen: map[*types.Func]bool{}, entries: map[string]int{}}
	w.walk(start, "", "")
	// The team (agents.Team.Run) calls back into the turn through agents.Speaker, an interface
	// the walk cannot follow: converse's Speaker is walked from its methods, as converse would
	// enter them.
	speaker := pkg.Scope().Lookup("conversation").Type().(*types.Named)
	for i := 0; i < speaker.NumMethods(); i++ {
		if m := speaker.Method(i); m.Name() == "Speak" || m.Name() == "Hear" {
			w.walk(m, "converse.go", "Session")
		}
	}
	fmt.Printf("\nthe walk of a typed line from Session.Turn (static, each function once, slash commands skipped):\n")
	fmt.Printf("  functions reached %d, files %d, rooms entered %d (steps into another file), type changes %d\n",
		len(w.seen), len(w.entries), w.rooms, w.typeSteps)
	byType := map[string]int{}
	for fn := range w.seen {
		r := recv(fn)
		if r == "" {
			r = "(functions)"
		}
		byType[r]++
	}
	fmt.Println("  functions reached, by receiver type:")
	for _, r := range sortedKeys(byType) {
		fmt.Printf("    %-14s %d\n", r, byType[r])
	}
	fmt.Println("  entries per file:")
	for _, f := range sortedKeys(w.entries) {
		fmt.Printf("    %-14s %d\n", f, w.entries[f])
	}
	if len(os.Args) > 1 && os.Args[1] == "-v" {
		fmt.Println("  the walk:")
		for _, l := range w.trail {
			fmt.Println("    " + l)
		}
	}
	return nil
}

type walker struct {
	fset      *token.FileSet
	info      *types.Info
	decls     map[*types.Func]*ast.FuncDecl
	seen      map[*types.Func]bool
	entries   map[string]int
	rooms     int
	typeSteps int
	trail     []string
	depth     int
}

func (w *walker) walk(fn *types.Func, fromFile, fromType string) {
	fd := w.decls[fn]
	file := filepath.Base(w.fset.Position(fd.Pos()).Filename)
	if file != fromFile {
		w.rooms++
		w.entries[file]++
	}
	if r := recv(fn); fromType != "" && r != fromType {
		w.typeSteps++
	}
	w.trail = append(w.trail, fmt.Sprintf("%s%s %s", strings.Repeat("  ", w.depth), file, name(fn)))
	if w.seen[fn] {
		return
	}
	w.seen[fn] = true
	if fd.Body == nil {
		return
	}
	w.depth++
	defer func() { w.depth-- }()
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		callee, ok := w.info.Uses[id].(*types.Func)
		if !ok || w.decls[callee] == nil || callee.Name() == "command" && recv(callee) == "Session" {
			return true
		}
		w.walk(callee, file, recv(fn))
		return true
	})
}

// recv is the name of fn's receiver type, "" for a function.
func recv(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return t.String()
}

func name(fn *types.Func) string {
	if r := recv(fn); r != "" {
		return r + "." + fn.Name()
	}
	return fn.Name()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
