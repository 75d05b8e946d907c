package imports

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The kind guard: code outside a registry's own files never names what
// the registry registers (a workload kind, a fault operation, a schema
// format) to decide what to do, so that adding one is a file and a line.
// Each registry's names come from the registry's own source, parsed here,
// never from a list in this file: a new kind is guarded the day it lands.

// registry is one registry as the guard reads it: the names it registers
// (as string literals) and the identifiers of their constants, the fields
// a comparison with one of them is a decision on, and the files that may
// make such decisions.
type registry struct {
	what   string
	names  map[string]bool
	consts map[string]bool
	// pkg, if set, is the package qualifier its constants are used with
	// outside their package (faults.Delay); a selector with another
	// qualifier is not one of them.
	pkg string
	// fields are the selectors a comparison or a switch must be on for a
	// string literal to count (x.Type == "produce"); a registered
	// constant counts on any expression.
	fields map[string]bool
	// own says whether a file (relative to the module root) may decide on
	// the registry's names: its own files.
	own func(rel string) bool
}

// registries reads the three registries from their source.
func registries(t *testing.T, root string) []registry {
	t.Helper()
	planTypes := tableNames(t, filepath.Join(root, "internal/study/kinds.go"), "Kinds")
	faultOps := mapKeys(t, filepath.Join(root, "internal/faults/kind.go"), "Kinds")
	kinds := registry{what: "workload kinds", names: map[string]bool{}, consts: map[string]bool{},
		fields: map[string]bool{"Type": true, "Kind": true},
		own: func(rel string) bool {
			base := filepath.Base(rel)
			return strings.HasPrefix(base, "kind_") || base == "kinds.go" || base == "types.go" || base == "engine.go"
		}}
	for _, c := range planTypes {
		kinds.consts[c] = true
		kinds.names[constValue(t, filepath.Join(root, "internal/plan"), c)] = true
	}
	// An engine's kind may have no plan type (the drop-ins' probe): each
	// workload kind file's Kind() says its name.
	for _, name := range kindMethods(t, filepath.Join(root, "internal/workload")) {
		kinds.names[name] = true
	}
	ops := registry{what: "fault operations", names: map[string]bool{}, consts: map[string]bool{}, pkg: "faults",
		fields: map[string]bool{"Action": true, "Op": true},
		own:    func(rel string) bool { return filepath.Dir(rel) == "internal/faults" }}
	for _, c := range faultOps {
		ops.consts[c] = true
		ops.names[constValue(t, filepath.Join(root, "internal/faults"), c)] = true
	}
	formats := registry{what: "schema formats", names: map[string]bool{}, consts: map[string]bool{}, pkg: "serde",
		fields: map[string]bool{"Format": true},
		own:    func(rel string) bool { return filepath.Dir(rel) == "internal/serde" }}
	for _, c := range sliceConsts(t, filepath.Join(root, "internal/serde/serde.go"), "Formats") {
		formats.consts[c] = true
		formats.names[constValue(t, filepath.Join(root, "internal/serde"), c)] = true
	}
	for _, r := range []registry{kinds, ops, formats} {
		if len(r.names) < 3 || len(r.consts) < 3 {
			t.Fatalf("read %d names and %d constants of the %s: the guard's parser no longer finds the registry", len(r.names), len(r.consts), r.what)
		}
	}
	return []registry{kinds, ops, formats}
}

// knownDecisions are the places that decide on a registry's names today,
// outside its files: a ratchet, as the import rules' known edges are. The
// test fails on any other and on an entry that no longer occurs, so the
// list only shrinks. Empty: fault operations are values (faults.Kind)
// whose effects the timeline and the plan read.
var knownDecisions = map[string]bool{}

// TestNoKindSwitches: outside a registry's own files, no non-test code
// compares a workload's type or kind, a fault's operation or a schema's
// format with a registered name, or switches on one: code asks what it
// does (a plan type's rule, a spec's capability, a fault kind's effect, a
// format's codec), so that a new one is a file and a registration.
func TestNoKindSwitches(t *testing.T) {
	root := moduleRoot(t)
	regs := registries(t, root)
	found := map[string][]string{} // "file: what" → lines
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			for _, r := range regs {
				if r.own(rel) {
					continue
				}
				for _, pos := range r.decisions(f) {
					key := rel + ": " + r.what
					found[key] = append(found[key], strconv.Itoa(fset.Position(pos).Line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var news, gone []string
	for key, lines := range found {
		if !knownDecisions[key] {
			news = append(news, key+" (lines "+strings.Join(lines, ", ")+")")
		}
	}
	for key := range knownDecisions {
		if _, ok := found[key]; !ok {
			gone = append(gone, key)
		}
	}
	sort.Strings(news)
	sort.Strings(gone)
	if len(news) > 0 {
		t.Errorf("registered names decided on outside their registry's files (ask the plan's type rule, a spec's capability, a fault kind's effect or a format's codec instead):\n  %s", strings.Join(news, "\n  "))
	}
	if len(gone) > 0 {
		t.Errorf("known decisions that no longer occur: remove them from knownDecisions:\n  %s", strings.Join(gone, "\n  "))
	}
}

// decisions finds `x.F == name`, `x.F != c` (F one of the registry's
// fields, name a registered name, c a registered constant), `y == c` for
// any y, and switches on such expressions with such cases.
func (r registry) decisions(f *ast.File) []token.Pos {
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (r.decides(n.X, n.Y) || r.decides(n.Y, n.X)) {
				out = append(out, n.Pos())
			}
		case *ast.SwitchStmt:
			if n.Tag == nil {
				return true
			}
			for _, s := range n.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					if r.decides(n.Tag, e) {
						out = append(out, e.Pos())
					}
				}
			}
		}
		return true
	})
	return out
}

// decides says whether comparing x with v decides on a registered name.
func (r registry) decides(x, v ast.Expr) bool {
	if c, ok := v.(*ast.CallExpr); ok && len(c.Args) == 1 {
		v = c.Args[0] // string(plan.Produce)
	}
	switch v := v.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(v.Value)
		return err == nil && r.names[s] && r.field(x)
	case *ast.Ident:
		return r.pkg == "" && r.consts[v.Name] && r.field(x)
	case *ast.SelectorExpr:
		q, ok := v.X.(*ast.Ident)
		if !ok || !r.consts[v.Sel.Name] {
			return false
		}
		if r.pkg != "" {
			return q.Name == r.pkg
		}
		return r.field(x)
	}
	return false
}

// field is x.F, x.F() or a conversion of one (string(x.Kind)), with F one
// of the registry's fields.
func (r registry) field(e ast.Expr) bool {
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
		e = c.Args[0]
	}
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 0 {
		e = c.Fun
	}
	s, ok := e.(*ast.SelectorExpr)
	return ok && r.fields[s.Sel.Name]
}

// TestKindComparisonsFound: the check finds what it looks for (so that it
// can fail), for each registry.
func TestKindComparisonsFound(t *testing.T) {
	regs := registries(t, moduleRoot(t))
	src := `package p
func f(w W, op string) {
	if w.Type == plan.Consume {}
	if w.Kind != "end-to-end" {}
	if string(w.Kind) == string(plan.Produce) {}
	switch w.Type { case Produce, EndToEnd: }
	if w.Type == "share-consume" {}
	if w.Kind() == "probe" {}
	if w.Type == "json" {}
	if x.Name == "produce" {}

	if f.Action == faults.HealLink {}
	switch op { case faults.Delay, faults.Loss: }
	if f.Action == "kill" {}
	if other.Delay == 1 {}

	if s.Format == serde.Avro {}
	switch format { case serde.Protobuf: }
	if m.Format != "json_schema" {}
	if m.Name == "avro" {}
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"workload kinds": 7, "fault operations": 4, "schema formats": 3}
	for _, r := range regs {
		if got := len(r.decisions(f)); got != want[r.what] {
			t.Errorf("%s: found %d decisions, want %d", r.what, got, want[r.what])
		}
	}
}

// mapKeys returns the identifiers used as keys of the map literal that
// function fn of file returns (plan.Types, faults.Kinds).
func mapKeys(t *testing.T, file, fn string) []string {
	t.Helper()
	f := parse(t, file)
	var keys []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					keys = append(keys, id.Name)
				}
				return false
			}
			return true
		})
	}
	if len(keys) == 0 {
		t.Fatalf("%s: no map keys in %s", file, fn)
	}
	return keys
}

// tableNames returns the constants that name the entries of the table
// function fn returns: each entry's first element (study.Kinds:
// {plan.Produce, ...} gives Produce).
func tableNames(t *testing.T, file, fn string) []string {
	t.Helper()
	var names []string
	for _, d := range parse(t, file).Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok || len(cl.Elts) == 0 {
				return true
			}
			if sel, ok := cl.Elts[0].(*ast.SelectorExpr); ok {
				names = append(names, sel.Sel.Name)
				return false
			}
			return true
		})
	}
	if len(names) == 0 {
		t.Fatalf("%s: no entries in %s", file, fn)
	}
	return names
}

// sliceConsts returns the constants a var's slice literal holds,
// converted or not (serde.Formats: string(Avro), ...).
func sliceConsts(t *testing.T, file, name string) []string {
	t.Helper()
	f := parse(t, file)
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != name || len(vs.Values) != 1 {
			return true
		}
		for _, e := range vs.Values[0].(*ast.CompositeLit).Elts {
			if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
				e = c.Args[0]
			}
			if id, ok := e.(*ast.Ident); ok {
				out = append(out, id.Name)
			}
		}
		return false
	})
	if len(out) == 0 {
		t.Fatalf("%s: no constants in %s", file, name)
	}
	return out
}

// constValue is the string value of constant name in the package in dir.
func constValue(t *testing.T, dir, name string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		for _, d := range parse(t, filepath.Join(dir, e.Name())).Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if n.Name != name || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
						if v, err := strconv.Unquote(lit.Value); err == nil {
							return v
						}
					}
				}
			}
		}
	}
	t.Fatalf("%s: no string constant %s", dir, name)
	return ""
}

// kindMethods returns the names the workload kind files' Kind methods
// return ("produce", "probe", ...).
func kindMethods(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "kind_*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, file := range files {
		for _, d := range parse(t, file).Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "Kind" || len(fd.Body.List) != 1 {
				continue
			}
			if ret, ok := fd.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
				if lit, ok := ret.Results[0].(*ast.BasicLit); ok {
					if v, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(out, v) {
						out = append(out, v)
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no Kind methods in the kind files", dir)
	}
	return out
}

func parse(t *testing.T, file string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// moduleRoot is the folder of go.mod above the test's folder.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
