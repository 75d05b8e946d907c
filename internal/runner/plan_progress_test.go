package runner

import (
	"bytes"
	"strings"
	"testing"

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
