package imports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// known are the edges that break a rule today. The list only shrinks:
// TestImportRules fails on an edge not in it, and on one in it that no
// longer occurs. Each entry says which step of the engine work removes it.
var known = []edge{}

// TestImportRules checks the repo's import rules (docs/notes.md, "Import
// rules") over `go list -json ./...`, with known as the ratchet.
func TestImportRules(t *testing.T) {
	t.Parallel()
	g, err := load()
	if err != nil {
		t.Fatal(err)
	}
	unexpected, stale := ratchet(check(g, rules), known)
	for _, v := range unexpected {
		t.Errorf("%s breaks an import rule: %s", v.edge, v.Rule)
	}
	for _, e := range stale {
		t.Errorf("%s no longer occurs: remove it from known (imports_test.go)", e)
	}
}

// ratchet splits the violations found against the known list: the ones
// not known, and the known edges no longer found.
func ratchet(found []violation, known []edge) (unexpected []violation, stale []edge) {
	seen := map[edge]bool{}
	for _, v := range found {
		seen[v.edge] = true
		if !slices.Contains(known, v.edge) {
			unexpected = append(unexpected, v)
		}
	}
	for _, e := range known {
		if !seen[e] {
			stale = append(stale, e)
		}
	}
	return unexpected, stale
}

// listed is the part of `go list -json`'s Package the rules read.
type listed struct {
	ImportPath   string
	Module       struct{ Path string }
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

// load lists every package of the module (from its root, whichever
// folder the test runs in) as a graph of paths relative to the module.
func load() (graph, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	// Naming the fields spares go list the costly ones (Stale): about half
	// the time.
	out, err := run(filepath.Dir(strings.TrimSpace(string(gomod))),
		"go", "list", "-json=ImportPath,Module,Imports,Deps,TestImports,XTestImports", "./...")
	if err != nil {
		return nil, err
	}
	return decode(out)
}

// run runs a command in dir and returns its output; the error carries
// its stderr.
func run(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// decode reads go list's stream of JSON packages into a graph, kbench
// paths made relative to the module.
func decode(out string) (graph, error) {
	var ps []listed
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decode go list -json: %w", err)
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil, errors.New("go list -json ./... listed no package")
	}
	module := ps[0].Module.Path
	rel := func(paths []string) []string {
		r := make([]string, len(paths))
		for i, p := range paths {
			r[i] = strings.TrimPrefix(p, module+"/")
		}
		return r
	}
	g := graph{}
	for _, p := range ps {
		g[strings.TrimPrefix(p.ImportPath, module+"/")] = pkg{
			Imports: rel(p.Imports), Deps: rel(p.Deps),
			TestImports: rel(p.TestImports), XTestImports: rel(p.XTestImports),
		}
	}
	return g, nil
}
