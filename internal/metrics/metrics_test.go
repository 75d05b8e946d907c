package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/result"
)

// TestCountersEqualTheResult: counters follow the intervals, then each
// repeat's end adds what the intervals missed, so they equal the result's
// sums; failures by kind too.
func TestCountersEqualTheResult(t *testing.T) {
	e := New("study", "test")
	ri := observe.RepeatInfo{Scenario: 1, Scenarios: 1, Name: "partitions=10", Repeat: 1, Repeats: 2, Started: time.Now()}
	for r := 1; r <= 2; r++ {
		ri.Repeat = r
		e.RepeatStarted(ri)
		buckets := make([]int64, len(measure.LatencyBucketsUs())+1)
		buckets[2] = 900 // ≤ 2.5 ms
		e.ProducerInterval("writers", measure.Interval{WindowStats: measure.WindowStats{Count: 900, Bytes: 90_000, LatSumUs: 900 * 2000, LatCount: 900}, Buckets: buckets,
			Failed: 2, Errors: map[string]int64{"REQUEST_TIMED_OUT": 2}})
		e.ConsumerInterval("readers", measure.ConsumerInterval{Records: 800, Bytes: 80_000})
		e.ConsumerLag("readers", 42)
		e.RepeatEnded(ri, result.Repeat{Workloads: []result.Workload{
			{Name: "writers", Producer: &result.Producer{Records: 1000, Bytes: 100_000, Failed: 3, Errors: map[string]int64{"REQUEST_TIMED_OUT": 2, "NOT_LEADER_OR_FOLLOWER": 1}}},
			{Name: "readers", Consumer: &result.Consumer{Records: 1000, Bytes: 100_000}},
		}})
	}
	for _, c := range []struct {
		got  float64
		want float64
		what string
	}{
		{testutil.ToFloat64(e.sent.WithLabelValues("partitions=10", "writers")), 2000, "records sent"},
		{testutil.ToFloat64(e.sentBytes.WithLabelValues("partitions=10", "writers")), 200_000, "bytes sent"},
		{testutil.ToFloat64(e.failed.WithLabelValues("partitions=10", "writers")), 6, "records failed"},
		{testutil.ToFloat64(e.errs.WithLabelValues("partitions=10", "writers", "NOT_LEADER_OR_FOLLOWER")), 2, "NOT_LEADER_OR_FOLLOWER"},
		{testutil.ToFloat64(e.errs.WithLabelValues("partitions=10", "writers", "REQUEST_TIMED_OUT")), 4, "REQUEST_TIMED_OUT"},
		{testutil.ToFloat64(e.consumed.WithLabelValues("partitions=10", "readers")), 2000, "records consumed"},
		{testutil.ToFloat64(e.lag.WithLabelValues("partitions=10", "readers")), 42, "lag"},
		{testutil.ToFloat64(e.repeat.WithLabelValues("partitions=10")), 2, "repeat"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	const want = `
# HELP kbench_publish_latency_seconds Publish latency (send to acknowledgement) of the records acknowledged.
# TYPE kbench_publish_latency_seconds histogram
kbench_publish_latency_seconds_bucket{scenario="partitions=10",workload="writers",le="0.0005"} 0
kbench_publish_latency_seconds_bucket{scenario="partitions=10",workload="writers",le="0.001"} 0
kbench_publish_latency_seconds_bucket{scenario="partitions=10",workload="writers",le="0.0025"} 1800
`
	got, err := testutil.CollectAndFormat(e.publish, expfmt.TypeTextPlain, "kbench_publish_latency_seconds")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		if !strings.Contains(string(got), line) {
			t.Errorf("histogram lacks %q:\n%s", line, got)
		}
	}
	if !strings.Contains(string(got), `kbench_publish_latency_seconds_count{scenario="partitions=10",workload="writers"} 1800`) ||
		!strings.Contains(string(got), `kbench_publish_latency_seconds_sum{scenario="partitions=10",workload="writers"} 3.6`) {
		t.Errorf("histogram count or sum wrong:\n%s", got)
	}
}

func TestScenarioRunningMovesOn(t *testing.T) {
	e := New("study", "test")
	e.RepeatStarted(observe.RepeatInfo{Scenario: 1, Name: "a", Repeat: 1})
	e.RepeatStarted(observe.RepeatInfo{Scenario: 2, Name: "b", Repeat: 1})
	if a, b := testutil.ToFloat64(e.running.WithLabelValues("a", "1")), testutil.ToFloat64(e.running.WithLabelValues("b", "2")); a != 0 || b != 1 {
		t.Errorf("scenario_running: a %v, b %v; want 0 and 1", a, b)
	}
}
