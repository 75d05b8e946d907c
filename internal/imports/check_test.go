package imports

import (
	"slices"
	"testing"
)

// clean is a small graph that keeps every rule: the shape the rules ask for.
func clean() graph {
	return graph{
		"cmd/kbench":                {Imports: []string{"fmt", "internal/runner", "internal/report", "internal/live"}},
		"internal/runner":           {Imports: []string{"internal/workload", kgo}, Deps: []string{kgo}},
		"internal/study":            {Imports: []string{"internal/runner", "internal/plan", "internal/result", "internal/faults"}, Deps: []string{kgo}},
		"internal/workload":         {Imports: []string{"internal/workload/produce", "internal/workload/consume", "internal/workload/share", "internal/measure", kgo}, Deps: []string{kgo}, TestImports: []string{kfake}},
		"internal/workload/engine":  {Imports: []string{"internal/measure", kgo}, Deps: []string{kgo}},
		"internal/workload/produce": {Imports: []string{"internal/workload/engine", kgo}, Deps: []string{kgo}},
		"internal/workload/consume": {Imports: []string{"internal/workload/engine", kgo}, Deps: []string{kgo}},
		"internal/workload/share":   {Imports: []string{"internal/workload/consume", "internal/workload/engine", kgo}, Deps: []string{kgo}},
		"internal/live":             {Imports: []string{"internal/measure", "internal/units"}},
		"internal/metrics":          {Imports: []string{"internal/measure"}},
		"internal/plan":             {Imports: []string{"internal/units", "internal/suggest"}, XTestImports: []string{kfake}},
		"internal/report":           {Imports: []string{"internal/result", "internal/measure"}},
		"internal/result":           {Imports: []string{"internal/measure"}},
		"internal/faults":           {Imports: []string{"context", "os/exec"}},
		"internal/faults/timeline":  {Imports: []string{"internal/faults", "internal/kadmin", kgo}, Deps: []string{"github.com/twmb/franz-go/pkg/kadm", kgo}},
		"internal/kadmin":           {Imports: []string{"github.com/twmb/franz-go/pkg/kadm"}, Deps: []string{"github.com/twmb/franz-go/pkg/kadm", kgo}},
		"internal/measure":          {Imports: []string{"sync/atomic"}},
		"internal/units":            {Imports: []string{"math/big"}},
		"internal/suggest":          {Imports: []string{"strings"}},
		"internal/kube":             {Imports: []string{"k8s.io/api/batch/v1", "sigs.k8s.io/yaml"}, XTestImports: []string{"k8s.io/client-go/kubernetes/scheme"}},
		"internal/compat":           {Imports: []string{"internal/runner", "internal/summary"}, Deps: []string{"internal/runner", "internal/summary", kgo}},
		"internal/summary":          {Imports: []string{"internal/result", "internal/workload"}, Deps: []string{"internal/result", "internal/workload", kgo}},
		"internal/studyuse":         {Imports: []string{"internal/study"}, Deps: []string{"internal/study", kgo}},
	}
}

// TestCheck shows each rule can fail: a clean graph passes, and each
// case breaks one rule with one edge and must see exactly that edge.
func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		from  string
		add   []string // added to from's Imports
		deps  []string // added to from's Deps
		wants []edge
	}{
		{name: "clean"},
		{name: "cmd imports an engine", from: "cmd/kbench", add: []string{"internal/workload"}, wants: []edge{{"cmd/kbench", "internal/workload"}}},
		{name: "cmd imports an engine's subpackage", from: "cmd/kbench", add: []string{"internal/workload/share"}, wants: []edge{{"cmd/kbench", "internal/workload/share"}}},
		{name: "cmd imports kgo", from: "cmd/kbench", add: []string{kgo}, wants: []edge{{"cmd/kbench", kgo}}},
		{name: "an engine imports result", from: "internal/workload", add: []string{"internal/result"}, wants: []edge{{"internal/workload", "internal/result"}}},
		{name: "an engine below workload imports result", from: "internal/workload/share", add: []string{"internal/result"}, wants: []edge{{"internal/workload/share", "internal/result"}}},
		// The families' edges below also close a cycle (share imports
		// consume, every family imports engine, the kinds import every
		// family): the cycle's closing edge is the second violation.
		{name: "consume imports share", from: "internal/workload/consume", add: []string{"internal/workload/share"},
			wants: []edge{{"internal/workload/consume", "internal/workload/share"}, {"internal/workload/share", "internal/workload/consume"}}},
		{name: "produce imports consume", from: "internal/workload/produce", add: []string{"internal/workload/consume"}, wants: []edge{{"internal/workload/produce", "internal/workload/consume"}}},
		{name: "share imports produce", from: "internal/workload/share", add: []string{"internal/workload/produce"}, wants: []edge{{"internal/workload/share", "internal/workload/produce"}}},
		{name: "share imports the kinds", from: "internal/workload/share", add: []string{"internal/workload"},
			wants: []edge{{"internal/workload/share", "internal/workload"}, {"internal/workload/share", "internal/workload"}}},
		{name: "engine imports a family", from: "internal/workload/engine", add: []string{"internal/workload/consume"},
			wants: []edge{{"internal/workload/consume", "internal/workload/engine"}, {"internal/workload/engine", "internal/workload/consume"}}},
		{name: "live imports the runner", from: "internal/live", add: []string{"internal/runner"}, wants: []edge{{"internal/live", "internal/runner"}}},
		{name: "the runner imports the plan", from: "internal/runner", add: []string{"internal/plan"}, wants: []edge{{"internal/runner", "internal/plan"}}},
		{name: "the runner imports result", from: "internal/runner", add: []string{"internal/result"}, wants: []edge{{"internal/runner", "internal/result"}}},
		{name: "the runner imports faults", from: "internal/runner", add: []string{"internal/faults/timeline"}, wants: []edge{{"internal/runner", "internal/faults/timeline"}}},
		{name: "the runner imports verify", from: "internal/runner", add: []string{"internal/verify"}, wants: []edge{{"internal/runner", "internal/verify"}}},
		{name: "metrics imports an engine", from: "internal/metrics", add: []string{"internal/workload"}, wants: []edge{{"internal/metrics", "internal/workload"}}},
		{name: "compat imports the study", from: "internal/compat", add: []string{"internal/study"}, deps: []string{"internal/study"}, wants: []edge{{"internal/compat", "internal/study"}}},
		{name: "compat imports a package that needs the study", from: "internal/compat", add: []string{"internal/studyuse"}, deps: []string{"internal/study"}, wants: []edge{{"internal/compat", "internal/studyuse"}}},
		{name: "plan imports kgo", from: "internal/plan", add: []string{kgo}, deps: []string{kgo}, wants: []edge{{"internal/plan", kgo}}},
		{name: "plan imports a package that needs kgo", from: "internal/plan", add: []string{"internal/faults/timeline"}, deps: []string{kgo}, wants: []edge{{"internal/plan", "internal/faults/timeline"}}},
		{name: "plan needs kgo through an outside package", from: "internal/plan", add: []string{"github.com/twmb/franz-go/pkg/kadm"}, deps: []string{kgo}, wants: []edge{{"internal/plan", kgo}}},
		{name: "plan imports a kbench package without kgo", from: "internal/plan", add: []string{"internal/measure"}},
		{name: "faults imports a package that needs kgo", from: "internal/faults", add: []string{"internal/kadmin"}, deps: []string{kgo}, wants: []edge{{"internal/faults", "internal/kadmin"}}},
		{name: "the timeline below faults talks to Kafka", from: "internal/faults/timeline", add: []string{kgo}},
		{name: "report imports kgo", from: "internal/report", add: []string{kgo}, deps: []string{kgo}, wants: []edge{{"internal/report", kgo}}},
		{name: "report imports kadmin", from: "internal/report", add: []string{"internal/kadmin"}, deps: []string{kgo}, wants: []edge{{"internal/report", "internal/kadmin"}}},
		{name: "measure imports units", from: "internal/measure", add: []string{"internal/units"}, wants: []edge{{"internal/measure", "internal/units"}}},
		{name: "suggest imports units", from: "internal/suggest", add: []string{"internal/units"}, wants: []edge{{"internal/suggest", "internal/units"}}},
		{name: "units imports an outside package", from: "internal/units", add: []string{"github.com/shopspring/decimal"}},
		{name: "kube imports plan", from: "internal/kube", add: []string{"internal/plan"}, wants: []edge{{"internal/kube", "internal/plan"}}},
		{name: "client-go outside tests", from: "cmd/kbench", add: []string{"k8s.io/client-go/kubernetes/scheme"}, wants: []edge{{"cmd/kbench", "k8s.io/client-go/kubernetes/scheme"}}},
		{name: "kfake outside tests", from: "internal/result", add: []string{kfake}, wants: []edge{{"internal/result", kfake}}},
		// The edge named is the one that closes the cycle as the checker walks
		// the packages in order; the message names the whole cycle.
		{name: "a cycle", from: "internal/result", add: []string{"internal/report"}, wants: []edge{{"internal/result", "internal/report"}}},
		{name: "a self-import", from: "internal/load", add: []string{"internal/load"}, wants: []edge{{"internal/load", "internal/load"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := clean()
			if tt.from != "" {
				p := g[tt.from]
				p.Imports = append(slices.Clone(p.Imports), tt.add...)
				p.Deps = append(slices.Clone(p.Deps), tt.deps...)
				g[tt.from] = p
			}
			var got []edge
			for _, v := range check(g, rules) {
				got = append(got, v.edge)
			}
			if !slices.Equal(got, tt.wants) {
				t.Fatalf("violations %v, want %v", got, tt.wants)
			}
		})
	}
}

// TestCycleNamesTheCycle: the message names every package on the cycle.
func TestCycleNamesTheCycle(t *testing.T) {
	t.Parallel()
	g := graph{"a": {Imports: []string{"b"}}, "b": {Imports: []string{"c"}}, "c": {Imports: []string{"a"}}}
	vs := cycles(g)
	if len(vs) != 1 || vs[0].edge != (edge{"c", "a"}) || vs[0].Rule != "no import cycles: a → b → c → a" {
		t.Fatalf("got %v, want one violation c → a naming a → b → c → a", vs)
	}
}

// TestRatchet: a violation not known fails, a known one that no longer
// occurs fails, and a known one that occurs passes.
func TestRatchet(t *testing.T) {
	t.Parallel()
	found := []violation{{edge{"a", "b"}, "r"}, {edge{"c", "d"}, "r"}}
	tests := []struct {
		name       string
		known      []edge
		unexpected []edge
		stale      []edge
	}{
		{"all known", []edge{{"a", "b"}, {"c", "d"}}, nil, nil},
		{"one new", []edge{{"a", "b"}}, []edge{{"c", "d"}}, nil},
		{"one gone", []edge{{"a", "b"}, {"c", "d"}, {"e", "f"}}, nil, []edge{{"e", "f"}}},
		{"none known", nil, []edge{{"a", "b"}, {"c", "d"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			unexpected, stale := ratchet(found, tt.known)
			var got []edge
			for _, v := range unexpected {
				got = append(got, v.edge)
			}
			if !slices.Equal(got, tt.unexpected) || !slices.Equal(stale, tt.stale) {
				t.Fatalf("unexpected %v, stale %v; want %v and %v", got, stale, tt.unexpected, tt.stale)
			}
		})
	}
}
