package study

import (
	"fmt"
	"testing"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

// TestShareDrawsFreshPerRun guards a share group's release and reject
// draws (and a consumer's processing times), which came from a fixed seed
// per client (its index + 1): every run, scenario and repeat drew the same
// sequence. They now come from the run's seed as the records' random
// values do: fresh per run unless the plan sets a seed, and another
// stream per repeat.
func TestShareDrawsFreshPerRun(t *testing.T) {
	t.Parallel()
	const text = `name: q
%s
workloads:
  - name: writer
    type: produce
    topic: t
    records: 100
    message: {size: 10}
  - name: workers
    type: share-consume
    topic: t
    records: 100
    processing: {distribution: uniform, min: 1ms, max: 3ms}
    share: {acknowledgement: explicit, release: 10%%, reject: 1%%}
  - name: readers
    type: consume
    topic: t
    records: 100
    processing: {distribution: exponential, mean: 1ms}
`
	seeds := func(t *testing.T, seedLine string) (run1, run2 map[string][2]uint64) {
		t.Helper()
		p, err := plan.Parse("plan.yaml", []byte(fmt.Sprintf(text, seedLine)), nil, PlanTypes()...)
		if err != nil {
			t.Fatal(err)
		}
		scs, err := p.Scenarios()
		if err != nil {
			t.Fatal(err)
		}
		run := func() map[string][2]uint64 {
			sc, err := scenarioOf(p, &scs[0], "localhost:9092", &build{seed: RunSeed(p)})
			if err != nil {
				t.Fatal(err)
			}
			out := map[string][2]uint64{}
			for _, w := range sc.Workloads {
				if _, ok := w.Spec.(workload.Drawing); !ok {
					continue
				}
				r1 := reseeded(sc, 1)
				r2 := reseeded(sc, 2)
				out[w.Name] = [2]uint64{seedOf(t, r1, w.Name), seedOf(t, r2, w.Name)}
			}
			return out
		}
		return run(), run()
	}
	a, b := seeds(t, "")
	for _, name := range []string{"workers", "readers"} {
		if a[name][0] == a[name][1] {
			t.Errorf("%s: repeats 1 and 2 draw from one seed %d", name, a[name][0])
		}
		if a[name] == b[name] {
			t.Errorf("%s: two runs of a plan without a seed draw from the same seeds %v", name, a[name])
		}
	}
	if a["workers"] == a["readers"] {
		t.Errorf("two workloads draw from the same seeds %v", a["workers"])
	}
	a, b = seeds(t, "seed: 42")
	for _, name := range []string{"workers", "readers"} {
		if a[name] != b[name] {
			t.Errorf("%s: a plan with a seed drew from %v, then %v: want the same", name, a[name], b[name])
		}
	}
}

// seedOf is the seed workload name of sc draws from.
func seedOf(t *testing.T, sc runner.Scenario, name string) uint64 {
	t.Helper()
	for _, w := range sc.Workloads {
		if d, ok := w.Spec.(workload.Drawing); ok && w.Name == name {
			return d.Seed()
		}
	}
	t.Fatalf("no drawing workload %q", name)
	return 0
}
