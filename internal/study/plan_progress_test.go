package study

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// TestProgressLineShowsSteadyState: regression: the per-repeat line on
// stderr gave the whole run's records/s while summary.md averaged steady
// state's, so the two disagreed with no note. With a warm-up the line now
// gives steady state's figures and says so; a fixed-rate producer short of
// its rate says what limited it.
func TestProgressLineShowsSteadyState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		prod *result.Producer
		gen  *result.Generator
		want string
	}{
		{"no warm-up", &result.Producer{Records: 1000, RecordsPerSec: 500}, nil, ", 1000 records, 500 records/s"},
		{"warm-up", &result.Producer{Records: 1000, RecordsPerSec: 500, SteadyState: &result.Producer{Records: 800, RecordsPerSec: 640}},
			nil, ", 1000 records; after the warm-up 800 records, 640 records/s"},
		{"cluster limited", &result.Producer{Records: 1000, RecordsPerSec: 500},
			&result.Generator{RateLimitedBy: "cluster", RateNote: "reached 500 of 5000 records/s with the sender on its schedule"},
			"; p: reached 500 of 5000 records/s with the sender on its schedule"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := newProgress(&out, 1, 1)
		p.begin(1, 1, "s")
		p.end(result.Repeat{Status: result.StatusOK, Workloads: []result.Workload{{Name: "p", Producer: tt.prod, Generator: tt.gen}}})
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%s: %q lacks %q", tt.name, out.String(), tt.want)
		}
	}
}

// TestProgressLinePhasesInSequence: regression: the per-repeat line added
// the records/s of producing phases that ran one after the other
// ("206000 records, 20501 records/s": writers at 20,000/s, then a probe
// at 500/s). Phases in sequence now get their records and no total rate.
func TestProgressLinePhasesInSequence(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0).UTC()
	prod := func(name string, from float64, records int64, rps float64) result.Workload {
		return result.Workload{Name: name, Producer: &result.Producer{Records: records, RecordsPerSec: rps,
			Intervals: []result.Interval{{Start: t0.Add(time.Duration(from * float64(time.Second))), Seconds: 10}}}}
	}
	var out bytes.Buffer
	p := newProgress(&out, 1, 1)
	p.begin(1, 1, "s")
	p.end(result.Repeat{Status: result.StatusOK, Workloads: []result.Workload{prod("writers", 0, 200000, 20000), prod("latency", 12, 6000, 500)}})
	if want := ", 206000 records (producers in sequence: no total rate)"; !strings.Contains(out.String(), want) || strings.Contains(out.String(), "records/s") {
		t.Errorf("%q: want %q and no total rate", out.String(), want)
	}
}
