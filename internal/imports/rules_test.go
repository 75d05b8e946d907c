package imports

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Import paths the rules name that are not kbench packages.
const (
	kgo   = "github.com/twmb/franz-go/pkg/kgo"
	kfake = "github.com/twmb/franz-go/pkg/kfake"
	// clientGo is Kubernetes' client: kbench only writes manifests
	// (internal/kube, with k8s.io/api), so the binary does without it.
	clientGo = "k8s.io/client-go/..."
)

// pkg is one kbench package as `go list -json` describes it; paths of
// kbench packages are relative to the module ("internal/plan"), others
// are as written ("github.com/twmb/franz-go/pkg/kgo", "fmt").
type pkg struct {
	Imports      []string // non-test imports
	Deps         []string // every package its non-test code needs, transitively
	TestImports  []string // imports of its _test.go files in the package
	XTestImports []string // imports of its _test.go files in package x_test
}

// graph is every kbench package by its path relative to the module.
type graph map[string]pkg

// edge is one import that breaks a rule: From imports To. It is also how
// the known list names a violation.
type edge struct{ From, To string }

func (e edge) String() string { return e.From + " → " + e.To }

// violation is an edge and the rule it breaks.
type violation struct {
	edge
	Rule string
}

// rule checks one package of g; it returns the edges that break it.
type rule struct {
	Name  string
	From  string // the packages it applies to: a path, or "path/..." for the path and below
	check func(g graph, from string) []string
}

// match reports whether path is pattern, or below it for "x/...".
func match(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// importsNone breaks on any direct import matching one of patterns.
func importsNone(patterns ...string) func(graph, string) []string {
	return func(g graph, from string) []string {
		var bad []string
		for _, imp := range g[from].Imports {
			if slices.ContainsFunc(patterns, func(p string) bool { return match(p, imp) }) {
				bad = append(bad, imp)
			}
		}
		return bad
	}
}

// importsNoKbench breaks on any direct import of a kbench package.
func importsNoKbench(g graph, from string) []string {
	var bad []string
	for _, imp := range g[from].Imports {
		if _, ok := g[imp]; ok {
			bad = append(bad, imp)
		}
	}
	return bad
}

// reachesNoKgo breaks on a direct import of kgo and on a direct import of
// a kbench package that needs kgo (imports it, or a package that does).
// kgo needed only through an outside package is the edge from → kgo.
func reachesNoKgo(g graph, from string) []string {
	var bad []string
	for _, imp := range g[from].Imports {
		if imp == kgo {
			bad = append(bad, imp)
			continue
		}
		if p, ok := g[imp]; ok && (slices.Contains(p.Imports, kgo) || slices.Contains(p.Deps, kgo)) {
			bad = append(bad, imp)
		}
	}
	if len(bad) == 0 && slices.Contains(g[from].Deps, kgo) {
		bad = append(bad, kgo)
	}
	return bad
}

// needsNone breaks on a direct import of a kbench package that is, or
// needs, one of targets: what the package links through it.
func needsNone(targets ...string) func(graph, string) []string {
	return func(g graph, from string) []string {
		var bad []string
		for _, imp := range g[from].Imports {
			p, ok := g[imp]
			if !ok {
				continue
			}
			if slices.Contains(targets, imp) || slices.ContainsFunc(p.Deps, func(d string) bool { return slices.Contains(targets, d) }) {
				bad = append(bad, imp)
			}
		}
		return bad
	}
}

// rules are the repo's import rules (docs/notes.md, "Import rules").
var rules = []rule{
	{"the CLI wires, it does not drive engines or Kafka", "cmd/kbench", importsNone("internal/workload/...", kgo)},
	{"engines return measurements, never result documents", "internal/workload/...", importsNone("internal/result/...")},
	{"the engines' common pieces are below every engine family", "internal/workload/engine/...",
		importsNone("internal/workload", "internal/workload/produce/...", "internal/workload/consume/...", "internal/workload/share/...")},
	{"engine families do not import each other (the kinds compose them): the producer", "internal/workload/produce/...",
		importsNone("internal/workload", "internal/workload/consume/...", "internal/workload/share/...")},
	{"engine families do not import each other (the kinds compose them): the consumer knows no share group", "internal/workload/consume/...",
		importsNone("internal/workload", "internal/workload/produce/...", "internal/workload/share/...")},
	{"engine families do not import each other (the kinds compose them): share groups read through consume only", "internal/workload/share/...",
		importsNone("internal/workload", "internal/workload/produce/...")},
	{"observers see measurements, never engines, the runner or the study", "internal/live/...", importsNone("internal/runner/...", "internal/study/...", "internal/workload/...")},
	{"observers see measurements, never engines, the runner or the study", "internal/metrics/...", importsNone("internal/runner/...", "internal/study/...", "internal/workload/...")},
	{"the runner runs one scenario: plans, results, faults and verification are the study's", "internal/runner/...",
		importsNone("internal/plan/...", "internal/result/...", "internal/faults/...", "internal/verify/...")},
	{"the drop-in tools do not link the study (its faults, coordination, reports): summaries come from internal/summary", "internal/compat/...", needsNone("internal/study")},
	{"the plan parser never talks to Kafka", "internal/plan/...", reachesNoKgo},
	{"fault kinds are what plans read: they act on a cluster only through the actor they are given (cluster.FaultActor), never through Kafka", "internal/faults", reachesNoKgo},
	{"the report never talks to Kafka", "internal/report/...", reachesNoKgo},
	{"leaf packages import no kbench package", "internal/measure/...", importsNoKbench},
	{"leaf packages import no kbench package", "internal/units/...", importsNoKbench},
	{"leaf packages import no kbench package", "internal/outfile/...", importsNoKbench},
	{"leaf packages import no kbench package", "internal/userr/...", importsNoKbench},
	{"leaf packages import no kbench package", "internal/suggest/...", importsNoKbench},
	{"leaf packages import no kbench package", "internal/kube/...", importsNoKbench},
	{"client-go is for tests (strict decoding of manifests): only _test.go files import it", "...", importsNone(clientGo)},
	{"kfake is for tests: only _test.go files and the test helpers kfakehold and testkafka import it", "...", except([]string{"internal/kfakehold", "internal/testkafka"}, importsNone(kfake))},
	{"test helpers are for tests: only _test.go files import them", "...", importsNone("internal/coord/memcoord", "internal/kfakehold", "internal/leaktest", "internal/testkafka")},
}

// except applies check to every package but those in skip.
func except(skip []string, check func(graph, string) []string) func(graph, string) []string {
	return func(g graph, from string) []string {
		if slices.Contains(skip, from) {
			return nil
		}
		return check(g, from)
	}
}

// check returns every violation of rules in g, cycles among kbench
// packages included, sorted by edge.
func check(g graph, rules []rule) []violation {
	var vs []violation
	for _, r := range rules {
		for _, from := range sortedKeys(g) {
			if r.From != "..." && !match(r.From, from) {
				continue
			}
			for _, to := range r.check(g, from) {
				vs = append(vs, violation{edge{from, to}, r.Name})
			}
		}
	}
	vs = append(vs, cycles(g)...)
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].From != vs[j].From {
			return vs[i].From < vs[j].From
		}
		return vs[i].To < vs[j].To
	})
	return vs
}

// cycles returns one violation per import that closes a cycle among
// kbench packages' non-test imports (go list refuses such a graph, but
// the checker should not depend on that), naming the whole cycle.
func cycles(g graph) []violation {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var vs []violation
	var visit func(p string)
	visit = func(p string) {
		state[p] = open
		path = append(path, p)
		for _, imp := range g[p].Imports {
			if _, ok := g[imp]; !ok {
				continue
			}
			switch state[imp] {
			case unseen:
				visit(imp)
			case open:
				i := slices.Index(path, imp)
				cycle := strings.Join(append(slices.Clone(path[i:]), imp), " → ")
				vs = append(vs, violation{edge{p, imp}, fmt.Sprintf("no import cycles: %s", cycle)})
			}
		}
		path = path[:len(path)-1]
		state[p] = done
	}
	for _, p := range sortedKeys(g) {
		if state[p] == unseen {
			visit(p)
		}
	}
	return vs
}

func sortedKeys(g graph) []string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
