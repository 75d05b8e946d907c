package study

import (
	"strconv"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
)

// TestSearchRate: with a cluster that keeps p99 under the limit up to
// 10,300 records/s, the search ends within 5% below it, in few probes.
func TestSearchRate(t *testing.T) {
	tests := []struct {
		name      string
		capacity  float64
		bound     bool // probes above capacity are generator-bound
		start     float64
		wantLimit string
	}{
		{"cluster", 10300, false, 1000, "cluster"},
		{"generator", 10300, true, 1000, "generator"},
		{"start above capacity", 10300, false, 50000, "cluster"},
		{"never broken", 1e12, false, 1000, "not reached"},
		// Regression: a cold cluster breaks the SLO on the first probe
		// only; the search bisected below it and answered 969 records/s.
		{"cold first probe", 10300, false, 1000, "cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probes, calls, warmed := 0, 0, false
			best, limit := searchRate(tt.start, func(r float64, warm bool) (result.Probe, bool) {
				calls++
				// A cold cluster breaks the SLO on the first run, whatever
				// its rate.
				cold := tt.name == "cold first probe" && calls == 1
				if warm {
					if warmed || probes > 0 || r != tt.start {
						t.Fatalf("warm-up at %v after %d probes", r, probes)
					}
					warmed = true
					return result.Probe{Rate: r, OK: !cold}, true
				}
				probes++
				ok := r <= tt.capacity && !cold
				return result.Probe{Rate: r, OK: ok, GeneratorBound: !ok && tt.bound}, true
			})
			if !warmed {
				t.Error("no warm-up probe")
			}
			if limit != tt.wantLimit {
				t.Errorf("limit %q, want %q", limit, tt.wantLimit)
			}
			if tt.capacity < 1e12 && (best > tt.capacity || best < 0.95*tt.capacity) {
				t.Errorf("found %.0f records/s, capacity %.0f: want within 5%% below", best, tt.capacity)
			}
			if probes > MaxProbes {
				t.Errorf("%d probes", probes)
			}
		})
	}
}

// TestPreviewKeyAndHeaderTemplates: keys and headers render per record
// from templates, a string without its JSON quotes.
func TestPreviewKeyAndHeaderTemplates(t *testing.T) {
	p, err := plan.Parse("plan.yaml", []byte(`name: kt
workloads:
  - name: p
    type: produce
    topic: t
    records: 10
    message:
      size: 10
      key: {template: {_type: uuid}}
      headers: {source: kbench, seq: {_type: sequence, _start: 7}}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	recs, order, err := Preview(p, &scs[0], "", 3, RunSeed(p))
	if err != nil || len(order) != 1 {
		t.Fatal(err)
	}
	for j, r := range recs["p"] {
		if len(r.Key) != 36 || len(r.Value) != 10 || len(r.Headers) != 2 ||
			string(r.Headers[0].Value) != "kbench" || string(r.Headers[1].Value) != strconv.Itoa(7+j) {
			t.Fatalf("record %d: key %q headers %v", j, r.Key, r.Headers)
		}
	}
}

// TestMedianProbe: a rate is judged on its runs' median, so one stalled
// run does not decide it.
func TestMedianProbe(t *testing.T) {
	mr := &plan.MaxRate{Percentile: 0.99, Limit: 50 * time.Millisecond, Probes: 3}
	runs := []result.Probe{{LatencyMs: 12, Achieved: 100}, {LatencyMs: 900, Achieved: 99}, {LatencyMs: 15, Achieved: 100}}
	if m := medianProbe(runs, 100, mr); !m.OK || m.LatencyMs != 15 {
		t.Fatalf("median probe %+v: one stalled run of three must not break the SLO", m)
	}
	runs[0].LatencyMs = 70
	if m := medianProbe(runs, 100, mr); m.OK {
		t.Fatalf("median probe %+v: two runs of three over the limit break it", m)
	}
}
