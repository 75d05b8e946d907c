package ombresult

import (
	"slices"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// series makes n one-second intervals from start (the first may be
// shorter: from), each with records(i).
func series(t *testing.T, start time.Time, n int, records func(i int) int64) []result.Interval {
	t.Helper()
	var out []result.Interval
	for i := range n {
		out = append(out, result.Interval{Start: start.Add(time.Duration(i) * time.Second), Seconds: 1, Records: records(i)})
	}
	return out
}

func latency(t *testing.T, values ...int64) result.Latency {
	t.Helper()
	h := measure.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	l, err := result.LatencyOf(h)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func testRun() Run {
	return Run{
		Workload: "1 topic", Driver: "Kafka", MessageSize: 100, Topics: 1, Partitions: 4,
		ProducersPerTopic: 2, ConsumersPerTopic: 1, SubscriptionsPerTopic: 1,
		Warmup: 5 * time.Second, Producers: []string{"p"}, Consumers: []string{"c"},
	}
}

// TestBuildPeriods: 5 s of warm-up and 32 s of test make three periods
// (the last 2 s join the third: under half a period), the periods' counts
// add up to the series' after the warm-up, and the backlog is what was
// acknowledged less what was read by each period's end.
func TestBuildPeriods(t *testing.T) {
	t.Parallel()
	ivs := series(t, t0, 37, func(int) int64 { return 100 })
	ivs[3].Failed, ivs[20].Failed = 7, 5 // in the warm-up, in the second period
	prod := &result.Producer{Records: 37 * 100, Intervals: ivs,
		Latency: latency(t, 1000, 2000), SteadyState: &result.Producer{Latency: latency(t, 2000, 4000), PublishDelay: ptr(latency(t, 3, 5))}}
	// The consumer reads 90 a second, then catches up in the last second
	// and waits 4 s more after the producers ended: the last period holds
	// it, and does not grow.
	cons := &result.Consumer{Intervals: series(t, t0, 41, func(i int) int64 {
		switch {
		case i == 36:
			return 3700 - 36*90
		case i > 36:
			return 0
		}
		return 90
	})}
	e2e := latency(t, 5000, 7000, 9000)
	rep := result.Repeat{Index: 1, Workloads: []result.Workload{
		{Name: "p", Type: "produce", Producer: prod},
		{Name: "c", Type: "consume", Consumer: cons, EndToEnd: &e2e},
	}}
	r, err := Build(rep, testRun())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.PublishRate) != 3 {
		t.Fatalf("%d periods, want 3: %v", len(r.PublishRate), r.PublishRate)
	}
	wantRates := []float64{100, 100, 100}
	for i, want := range wantRates {
		if r.PublishRate[i] != want {
			t.Errorf("publishRate[%d] = %v, want %v", i, r.PublishRate[i], want)
		}
	}
	if want := []float64{0, 0.5, 0}; !slices.Equal(r.PublishErrorRate, want) {
		t.Errorf("publishErrorRate %v, want %v (5 failed in the second period)", r.PublishErrorRate, want)
	}
	// Records after the warm-up, period by period: rate × length.
	if want := []float64{10, 10, 12}; !slices.Equal(r.PeriodSeconds, want) {
		t.Errorf("periods of %v s, want %v", r.PeriodSeconds, want)
	}
	sent := r.PublishRate[0]*10 + r.PublishRate[1]*10 + r.PublishRate[2]*12
	if sent != 32*100 {
		t.Errorf("periods hold %v records, the series after the warm-up %d", sent, 32*100)
	}
	received := r.ConsumeRate[0]*10 + r.ConsumeRate[1]*10 + r.ConsumeRate[2]*12
	if received != 3700-5*90 {
		t.Errorf("periods read %v records, want %d", received, 3700-5*90)
	}
	// By the end of the first period (15 s): 1500 acknowledged, 1350 read.
	wantBacklog := []int64{150, 250, 0}
	for i, want := range wantBacklog {
		if r.Backlog[i] != want {
			t.Errorf("backlog[%d] = %d, want %d", i, r.Backlog[i], want)
		}
	}
	// The publish figures are the steady state's, end-to-end the consumer's.
	if r.AggregatedPublish.P50 != 2 || r.AggregatedPublish.Max != 4 || r.AggregatedPublish.Avg != 3 {
		t.Errorf("aggregated publish = %+v, want the steady state's (2 and 4 ms)", r.AggregatedPublish)
	}
	if d := r.AggregatedPublishDelay; d.Avg != 4 || d.P50 != 3 || d.Max != 5 {
		t.Errorf("aggregated publish delay = %+v, want the steady state's in µs (3 and 5)", d)
	}
	if r.AggregatedEndToEnd.Avg != 7 || r.AggregatedEndToEnd.Max != 9 {
		t.Errorf("aggregated end-to-end = %+v, want avg 7 ms, max 9 ms", r.AggregatedEndToEnd)
	}
	if r.Workload != "1 topic" || r.Partitions != 4 || r.ProducersPerTopic != 2 || r.MessageSize != 100 {
		t.Errorf("header = %+v", r)
	}
}

func TestPeriods(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {-time.Second, 0}, {time.Second, 1}, {10 * time.Second, 1}, {14 * time.Second, 1},
		{15 * time.Second, 2}, {20 * time.Second, 2}, {24900 * time.Millisecond, 2}, {25 * time.Second, 3},
	} {
		if got := periods(tc.d); got != tc.want {
			t.Errorf("periods(%s) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

func TestBuildRefuses(t *testing.T) {
	t.Parallel()
	prod := &result.Producer{Intervals: series(t, t0, 3, func(int) int64 { return 1 })}
	rep := result.Repeat{Index: 1, Workloads: []result.Workload{{Name: "p", Producer: prod}}}
	run := testRun()
	run.Consumers = nil
	if _, err := Build(rep, run); err == nil {
		t.Error("a run that ended in its warm-up: no error")
	}
	run.Producers = []string{"q"}
	if _, err := Build(rep, run); err == nil {
		t.Error("a producer not in the repeat: no error")
	}
}

func ptr[T any](v T) *T { return &v }

// encoded is a histogram of values (µs), encoded as an interval keeps it.
func encoded(t *testing.T, values ...int64) string {
	t.Helper()
	h := measure.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestBuildPeriodLatencies: each period's figures come from its
// intervals: mean and maximum exact, percentiles from their histograms
// merged; the publish delay in µs, end-to-end in ms.
func TestBuildPeriodLatencies(t *testing.T) {
	t.Parallel()
	ivs := series(t, t0, 25, func(int) int64 { return 2 })
	cons := series(t, t0, 25, func(int) int64 { return 2 })
	for i := range ivs {
		// Warm-up (0-4 s): 1 ms delays and 9 ms end-to-end, which must not
		// leak into the periods; then 100 and 300 µs, and 2 and 4 ms.
		d, e := []int64{100, 300}, []int64{2000, 4000}
		if i < 5 {
			d, e = []int64{1000, 1000}, []int64{9000, 9000}
		}
		ivs[i].PublishDelayAvgUs, ivs[i].PublishDelayMaxUs, ivs[i].PublishDelayHistogram = float64(d[0]+d[1])/2, d[1], encoded(t, d...)
		cons[i].AvgLatencyMs, cons[i].MaxLatencyMs, cons[i].EndToEndHistogram = float64(e[0]+e[1])/2000, float64(e[1])/1000, encoded(t, e...)
	}
	rep := result.Repeat{Index: 1, Workloads: []result.Workload{
		{Name: "p", Type: "produce", Producer: &result.Producer{Intervals: ivs, Latency: latency(t, 1)}},
		{Name: "c", Type: "consume", Consumer: &result.Consumer{Intervals: cons}},
	}}
	r, err := Build(rep, testRun())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.PublishDelay.P50) != 2 || len(r.EndToEnd.Max) != 2 {
		t.Fatalf("%d and %d periods of latencies, want 2", len(r.PublishDelay.P50), len(r.EndToEnd.Max))
	}
	for k := range 2 {
		if d := r.PublishDelay; d.Avg[k] != 200 || d.P50[k] != 100 || d.P99[k] != 300 || d.Max[k] != 300 {
			t.Errorf("period %d: publish delay avg %v p50 %v p99 %v max %v, want 200, 100, 300, 300 µs", k, d.Avg[k], d.P50[k], d.P99[k], d.Max[k])
		}
		if e := r.EndToEnd; e.Avg[k] != 3 || e.P50[k] != 2 || e.P75[k] != 4 || e.Max[k] != 4 {
			t.Errorf("period %d: end-to-end avg %v p50 %v p75 %v max %v, want 3, 2, 4, 4 ms", k, e.Avg[k], e.P50[k], e.P75[k], e.Max[k])
		}
	}
	// The aggregated end-to-end latency is the test's, as OMB's: the
	// warm-up's 9 ms records are left out.
	if e := r.AggregatedEndToEnd; e.Avg != 3 || e.Max != 4 || e.P99 != 4 {
		t.Errorf("aggregated end-to-end avg %v p99 %v max %v, want 3, 4 and 4 ms (the warm-up left out)", e.Avg, e.P99, e.Max)
	}
	if q := r.AggregatedEndToEndQuantiles; len(q) == 0 || q[len(q)-1].Value != 4 {
		t.Errorf("end-to-end quantiles %v, want them to end at 4 ms", q)
	}
}
