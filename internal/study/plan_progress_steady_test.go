package study

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestProgressLineSaysSteadyCaveats guards issue 33 items 1 and 6 on the
// per-repeat line: a steady window of a fraction of a second printed its
// rate without a remark (warn, and say what to change), and a warm-up
// whose last acknowledgement came late said nothing of it.
func TestProgressLineSaysSteadyCaveats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		steady  *result.Producer
		want    string // "" : neither caveat
		wantNot string
	}{
		{"short window", &result.Producer{Records: 800, RecordsPerSec: 4000, DurationSeconds: 0.2},
			"p: short steady window: 0.20 s after the warm-up, under 3 s, too little for a steady rate or percentiles; run longer (duration, or records) or shorten the warm-up", ""},
		{"lagging acknowledgements", &result.Producer{Records: 18000, RecordsPerSec: 1744, DurationSeconds: 10.32, WarmupAckLagMs: 2640},
			"p: acknowledgements lagged: the warm-up's last came 2.6 s after its send", "short steady window"},
		{"neither", &result.Producer{Records: 18000, RecordsPerSec: 1744, DurationSeconds: 10.32, WarmupAckLagMs: 3}, "", "acknowledgements lagged"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := newProgress(&out, 1, 1)
		p.begin(1, 1, "s")
		p.end(result.Repeat{Status: result.StatusOK, Workloads: []result.Workload{{Name: "p", Producer: &result.Producer{Records: 20000, SteadyState: tt.steady}}}})
		got := out.String()
		if tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q lacks %q", tt.name, got, tt.want)
		}
		if tt.wantNot != "" && strings.Contains(got, tt.wantNot) || tt.want == "" && strings.Contains(got, "short steady window") {
			t.Errorf("%s: %q", tt.name, got)
		}
	}
}
