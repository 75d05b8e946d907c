package imports

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// kindNames are the workload kinds' names, as the plan spells them and
// the engines report them (workload.Spec.Kind), and the plan's constants.
var kindNames = map[string]bool{"produce": true, "consume": true, "end-to-end": true, "probe": true}
var kindConsts = map[string]bool{"Produce": true, "Consume": true, "EndToEnd": true, "Probe": true}

// kindFile reports whether a file may name kinds: the kind files and their
// registries.
func kindFile(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "kind_") || base == "kinds.go" || base == "types.go" || base == "engine.go"
}

// TestNoKindSwitches: outside the kind files and their registries, no
// non-test code compares a workload's type or kind with a kind's name or
// switches on it: code asks what a workload does (its rule, its
// capabilities, its measured sections), so a new kind is one file.
func TestNoKindSwitches(t *testing.T) {
	root := moduleRoot(t)
	var found []string
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || kindFile(path) {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			for _, pos := range kindComparisons(f) {
				found = append(found, rel+":"+strconv.Itoa(fset.Position(pos).Line))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(found) > 0 {
		t.Errorf("workload kinds named outside the kind files (ask the plan's type rule, a spec's capability or the measured sections instead):\n  %s", strings.Join(found, "\n  "))
	}
}

// kindComparisons finds `x.Type == k`, `x.Kind != k` (k a kind's name or
// constant) and switches on `x.Type` or `x.Kind` with such cases.
func kindComparisons(f *ast.File) []token.Pos {
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (kindField(n.X) && isKind(n.Y) || kindField(n.Y) && isKind(n.X)) {
				out = append(out, n.Pos())
			}
		case *ast.SwitchStmt:
			if n.Tag == nil || !kindField(n.Tag) {
				return true
			}
			for _, s := range n.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					if isKind(e) {
						out = append(out, e.Pos())
					}
				}
			}
		}
		return true
	})
	return out
}

// kindField is x.Type, x.Kind or x.Kind(), maybe converted (string(x.Kind)).
func kindField(e ast.Expr) bool {
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
		e = c.Args[0]
	}
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 0 {
		e = c.Fun
	}
	s, ok := e.(*ast.SelectorExpr)
	return ok && (s.Sel.Name == "Type" || s.Sel.Name == "Kind")
}

// isKind is a kind's name as a string literal or a plan constant
// (Produce, plan.Produce, string(plan.Produce)).
func isKind(e ast.Expr) bool {
	if c, ok := e.(*ast.CallExpr); ok && len(c.Args) == 1 {
		e = c.Args[0]
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return err == nil && kindNames[s]
	case *ast.Ident:
		return kindConsts[e.Name]
	case *ast.SelectorExpr:
		return kindConsts[e.Sel.Name]
	}
	return false
}

// TestKindComparisonsFound: the check finds what it looks for (so that it
// can fail).
func TestKindComparisonsFound(t *testing.T) {
	src := `package p
func f(w W) {
	if w.Type == plan.Consume {}
	if w.Kind != "end-to-end" {}
	if string(w.Kind) == string(plan.Produce) {}
	switch w.Type { case Produce, EndToEnd: }
	if w.Type == "json" {}
	if x.Name == "produce" {}
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(kindComparisons(f)); got != 5 {
		t.Errorf("found %d kind comparisons, want 5", got)
	}
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
