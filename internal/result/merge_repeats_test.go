package result

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// run is a synthetic repeat's records: per one-second interval, each
// acknowledged record's publish latency (µs); a reader's end-to-end
// latency of it is 400 µs more.
type run struct {
	start     time.Time
	intervals [][]int64
	clients   int
}

// mergeStart is the synthetic runs' common start.
var mergeStart = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// newRun draws n records over ivs intervals from a fixed seed: 1–50 ms,
// log-uniform, with a rare tail to 2 s, and a stall (intervals 7 and 8).
func newRun(seed uint64, n, ivs int) run {
	r := rand.New(rand.NewPCG(seed, 38))
	out := run{start: mergeStart, intervals: make([][]int64, ivs), clients: 1}
	for range n {
		i := r.IntN(ivs)
		if i == 7 || i == 8 {
			i = 9
		}
		v := int64(1000 * math.Exp(r.Float64()*math.Log(50)))
		if r.IntN(1000) == 0 {
			v = 50_000 + r.Int64N(2_000_000)
		}
		out.intervals[i] = append(out.intervals[i], v)
	}
	return out
}

// split deals the run's records alternately to k workers, each with one
// client.
func (r run) split(k int) []run {
	out := make([]run, k)
	for w := range out {
		out[w] = run{start: r.start, intervals: make([][]int64, len(r.intervals)), clients: 1}
	}
	n := 0
	for i, vs := range r.intervals {
		for _, v := range vs {
			out[n%k].intervals[i] = append(out[n%k].intervals[i], v)
			n++
		}
	}
	return out
}

// steadyFrom is the interval the synthetic runs' steady state starts at.
const steadyFrom = 5

// repeat encodes the run as the runner writes a repeat: a producer
// workload "load" (latency, steady state, series, generator) and a
// consumer "read" measuring end-to-end latency.
func (r run) repeat(tb testing.TB) Repeat {
	tb.Helper()
	all, steady, e2e := measure.NewHistogram(), measure.NewHistogram(), measure.NewHistogram()
	var records, steadyRecords int64
	pubSeries := make([]Interval, len(r.intervals))
	readSeries := make([]Interval, len(r.intervals))
	for i, vs := range r.intervals {
		pub, read := measure.NewSeriesHistogram(), measure.NewSeriesHistogram()
		for _, v := range vs {
			all.Record(v)
			pub.Record(v)
			e2e.Record(v + 400)
			read.Record(v + 400)
			if i >= steadyFrom {
				steady.Record(v)
				steadyRecords++
			}
		}
		records += int64(len(vs))
		n := int64(len(vs))
		iv := Interval{Start: r.start.Add(time.Duration(i) * time.Second), Seconds: 1, ElapsedSeconds: float64(i + 1),
			Records: n, Bytes: 100 * n, RecordsPerSec: float64(n), Steady: i >= steadyFrom}
		pubSeries[i], readSeries[i] = iv, iv
		pubSeries[i].SetLatency(pub)
		readSeries[i].Steady = false
		readSeries[i].SetLatency(read)
	}
	latencyOf := func(h *measure.Histogram) Latency {
		l, err := LatencyOf(h)
		if err != nil {
			tb.Fatal(err)
		}
		return l
	}
	secs := float64(len(r.intervals))
	steadyAt := r.start.Add(steadyFrom * time.Second)
	prod := &Producer{Clients: r.clients, Records: records, Bytes: 100 * records, DurationSeconds: secs,
		LatencyFrom: "intended", Latency: latencyOf(all), Intervals: pubSeries, TargetRate: 1000 * float64(r.clients),
		Errors: map[string]int64{"NOT_LEADER_FOR_PARTITION": 2}, BytesPerRecord: 100, CPUMicrosPerRecord: 1,
		SteadyState: &Producer{Clients: r.clients, Records: steadyRecords, Bytes: 100 * steadyRecords,
			DurationSeconds: secs - steadyFrom, LatencyFrom: "intended", Latency: latencyOf(steady),
			StartedAt: &steadyAt, WarmupAckLagMs: 12}}
	prod.setRates()
	prod.SteadyState.setRates()
	el := latencyOf(e2e)
	el.Source = "header"
	d := seconds(secs)
	cons := &Consumer{Clients: r.clients, Records: records, Bytes: 100 * records, DurationSeconds: secs, ReadingSeconds: secs,
		RecordsPerSec: measure.PerSecond(records, d), MiBPerSec: measure.PerSecond(100*records, d) / (1024 * 1024),
		LifetimeRecordsPerSec: measure.PerSecond(records, d), RebalanceMs: 40, FetchMs: d.Milliseconds() - 40, Intervals: readSeries}
	return Repeat{Index: 2, StartedAt: r.start.Add(-time.Second), EndedAt: r.start.Add(seconds(secs + 1)), Status: StatusOK,
		Workloads: []Workload{
			{Name: "load", Type: "produce", Producer: prod, Generator: &Generator{CPUSeconds: float64(records) / 1e6}},
			{Name: "read", Type: "consume", Consumer: cons, EndToEnd: &el},
		}}
}

// TestMergeRepeatsExact: one run's records dealt alternately to three
// simulated workers, each slice encoded as the runner would, merge into
// exactly the repeat of the whole run: counts, latency (count, sum, min,
// max, every percentile, the histogram itself), steady state, every
// interval's counts and percentiles, and the rates. The other cases:
// a workload only some workers ran, a failed slice, a generator-bound
// worker, and slices that are not of one plan.
func TestMergeRepeatsExact(t *testing.T) {
	t.Parallel()
	whole := newRun(7, 100_000, 60)
	single := whole
	single.clients = 3
	want := single.repeat(t)
	slices := func() []Repeat {
		var out []Repeat
		for _, w := range whole.split(3) {
			out = append(out, w.repeat(t))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		change func(rs []Repeat)
		err    string // "": no error
		check  func(t *testing.T, got Repeat)
	}{
		{name: "exact", check: func(t *testing.T, got Repeat) { checkExact(t, got, want) }},
		{name: "one workload in some slices", change: func(rs []Repeat) {
			rs[1].Workloads = append(rs[1].Workloads, Workload{Name: "probe", Type: "end-to-end", EndToEnd: rs[1].Workloads[1].EndToEnd})
		}, check: func(t *testing.T, got Repeat) {
			checkExact(t, got, want)
			if len(got.Workloads) != 3 || got.Workloads[2].Name != "probe" {
				t.Fatalf("workloads %v, want load, read, probe", workloadNames(got))
			}
			p := got.Workloads[2]
			if len(p.Workers) != 1 || p.Workers[0].Worker != 1 {
				t.Errorf("probe's workers %+v, want worker 1 only", p.Workers)
			}
			if n := p.EndToEnd.Count; n == 0 || n >= want.Workloads[1].EndToEnd.Count {
				t.Errorf("probe's latency counts %d records, want worker 1's own", p.EndToEnd.Count)
			}
		}},
		{name: "failed slice", change: func(rs []Repeat) {
			rs[2].Status, rs[2].Error = StatusFailed, "3 records failed"
			rs[2].Workloads[0].Producer.Failed = 3
		}, check: func(t *testing.T, got Repeat) {
			if got.Status != StatusFailed || got.Error != "worker 2: 3 records failed" {
				t.Errorf("status %s, error %q; want failed, naming worker 2", got.Status, got.Error)
			}
			if p := got.Workloads[0].Producer; p.Failed != 3 || p.Records != want.Workloads[0].Producer.Records {
				t.Errorf("failed %d, records %d; want 3 and every worker's", p.Failed, p.Records)
			}
		}},
		{name: "interrupted slice", change: func(rs []Repeat) {
			rs[0].Status, rs[0].Error = StatusInterrupted, "interrupted"
		}, check: func(t *testing.T, got Repeat) {
			if got.Status != StatusInterrupted || got.Error != "worker 0: interrupted" {
				t.Errorf("status %s, error %q; want interrupted, naming worker 0", got.Status, got.Error)
			}
		}},
		{name: "one worker generator-bound", change: func(rs []Repeat) {
			g := rs[1].Workloads[0].Generator
			g.Bound, g.Reasons = true, []string{"kbench used 97% of the machine's 2 CPUs"}
		}, check: func(t *testing.T, got Repeat) {
			w := got.Workloads[0]
			if !w.Generator.Bound || len(w.Generator.Reasons) != 1 || !strings.HasPrefix(w.Generator.Reasons[0], "worker 1: ") {
				t.Errorf("generator %+v, want bound, the reason naming worker 1", w.Generator)
			}
			for _, s := range w.Workers {
				if s.GeneratorBound != (s.Worker == 1) {
					t.Errorf("worker %d generator_bound %v", s.Worker, s.GeneratorBound)
				}
			}
		}},
		{name: "a slow worker's own latency", change: func(rs []Repeat) {
			rs[2].Workloads[0].Producer.Latency.P99 = 250_000 // µs: a loaded machine
		}, check: func(t *testing.T, got Repeat) {
			for _, s := range got.Workloads[0].Workers {
				if s.Publish == nil || (s.Publish.P99Ms == 250) != (s.Worker == 2) {
					t.Errorf("worker %d publish %+v; want worker 2's own p99 of 250 ms, the others theirs", s.Worker, s.Publish)
				}
			}
		}},
		{name: "mismatched workload types", change: func(rs []Repeat) {
			rs[1].Workloads[1].Type = "end-to-end"
		}, err: "workload read: worker 1's is of type end-to-end, worker 0's of type consume"},
		{name: "another repeat", change: func(rs []Repeat) { rs[2].Index = 3 }, err: "worker 2 ran repeat 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs := slices()
			if tc.change != nil {
				tc.change(rs)
			}
			got, err := MergeRepeats(rs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
		})
	}
}

func workloadNames(r Repeat) []string {
	var out []string
	for _, w := range r.Workloads {
		out = append(out, w.Name)
	}
	return out
}

// checkExact compares a merged repeat with the single run's.
func checkExact(t *testing.T, got, want Repeat) {
	t.Helper()
	if got.Status != StatusOK || got.Workers != 3 || !got.StartedAt.Equal(want.StartedAt) || !got.EndedAt.Equal(want.EndedAt) {
		t.Errorf("status %s, workers %d, %s to %s; want ok, 3, %s to %s", got.Status, got.Workers, got.StartedAt, got.EndedAt, want.StartedAt, want.EndedAt)
	}
	gp, wp := got.Workloads[0].Producer, want.Workloads[0].Producer
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"producer", counts(gp), counts(wp)},
		{"latency", gp.Latency, wp.Latency},
		{"steady state", counts(gp.SteadyState), counts(wp.SteadyState)},
		{"steady latency", gp.SteadyState.Latency, wp.SteadyState.Latency},
		{"steady started at", *gp.SteadyState.StartedAt, *wp.SteadyState.StartedAt},
		{"warm-up ack lag", gp.SteadyState.WarmupAckLagMs, wp.SteadyState.WarmupAckLagMs},
		{"errors", gp.Errors, map[string]int64{"NOT_LEADER_FOR_PARTITION": 6}},
		{"cpu per record", gp.CPUMicrosPerRecord, 1.0},
		{"consumer records", got.Workloads[1].Consumer.Records, want.Workloads[1].Consumer.Records},
		{"consumer rates", consumerFigures(got.Workloads[1].Consumer), consumerFigures(want.Workloads[1].Consumer)},
		{"end-to-end latency", *got.Workloads[1].EndToEnd, *want.Workloads[1].EndToEnd},
		{"producer notes", len(got.Workloads[0].Inexact), 0},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: merged %+v, single run %+v", c.what, c.got, c.want)
		}
	}
	for k := range 2 {
		g, w := seriesOfWorkload(got.Workloads[k]), seriesOfWorkload(want.Workloads[k])
		if len(g) != len(w) {
			t.Fatalf("%s: %d intervals, want %d", got.Workloads[k].Name, len(g), len(w))
		}
		for i := range w {
			if gi, wi := intervalFigures(g[i]), intervalFigures(w[i]); gi != wi {
				t.Errorf("%s interval %d: merged %+v, single run %+v", got.Workloads[k].Name, i, gi, wi)
			}
		}
	}
	if len(got.Workloads[0].Workers) != 3 {
		t.Errorf("workers %+v, want 3", got.Workloads[0].Workers)
	}
	var sum int64
	for _, s := range got.Workloads[0].Workers {
		sum += s.Records
	}
	if sum != wp.Records {
		t.Errorf("the workers' records add up to %d, want %d", sum, wp.Records)
	}
}

// counts are a producer's figures that must merge exactly.
func counts(p *Producer) [8]float64 {
	return [8]float64{float64(p.Clients), float64(p.Records), float64(p.Bytes), float64(p.Failed), p.DurationSeconds, p.RecordsPerSec, p.MiBPerSec, p.TargetRate}
}

// consumerFigures are a consumer's figures that must merge exactly when
// the workers read over the same time.
func consumerFigures(c *Consumer) [7]float64 {
	return [7]float64{c.DurationSeconds, c.ReadingSeconds, c.RecordsPerSec, c.MiBPerSec, c.LifetimeRecordsPerSec, float64(c.RebalanceMs), float64(c.FetchMs)}
}

func seriesOfWorkload(w Workload) []Interval {
	if w.Producer != nil {
		return w.Producer.Intervals
	}
	return w.Consumer.Intervals
}

type figures struct {
	start                            time.Time
	records, bytes                   int64
	count, sum, min, max             int64
	histogram                        string
	rate, mean, p50, p99, p999, maxL float64
}

func intervalFigures(iv Interval) figures {
	return figures{iv.Start, iv.Records, iv.Bytes, iv.LatencyCount, iv.LatencySumUs, iv.LatencyMinUs, iv.LatencyMaxUs,
		iv.LatencyHistogram, iv.RecordsPerSec, iv.AvgLatencyMs, iv.P50LatencyMs, iv.P99LatencyMs, iv.P999LatencyMs, iv.MaxLatencyMs}
}

// TestMergeRepeatsOneSlice: a single worker's slice merges into itself.
func TestMergeRepeatsOneSlice(t *testing.T) {
	t.Parallel()
	rep := newRun(11, 5_000, 10).repeat(t)
	got, err := MergeRepeats([]Repeat{rep})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range rep.Workloads {
		g := got.Workloads[i]
		if !reflect.DeepEqual(g.Producer, w.Producer) || !reflect.DeepEqual(g.Consumer, w.Consumer) || !reflect.DeepEqual(g.EndToEnd, w.EndToEnd) {
			t.Errorf("workload %s changed in the merge of one slice", w.Name)
		}
	}
}

// TestMergeRepeatsOffsetWorkers: workers that started and ended at other
// moments divide by the union of their sending times, and say nothing is
// inexact there; a worker's pause leaves out only the time no worker sent.
func TestMergeRepeatsOffsetWorkers(t *testing.T) {
	t.Parallel()
	parts := newRun(3, 3_000, 10).split(2)
	parts[1].start = parts[1].start.Add(2 * time.Second) // sends from 2 s to 12 s
	a, b := parts[0].repeat(t), parts[1].repeat(t)
	// Worker 1 paused 1 s at 3 s (5 s on the merged clock) and sent 1 s
	// less: worker 0 sent through it, so the stretch stays in.
	bp := b.Workloads[0].Producer
	bp.KbenchPauses = []Pause{{AtSeconds: 3, Seconds: 1}}
	bp.DurationSeconds--
	got, err := MergeRepeats([]Repeat{a, b})
	if err != nil {
		t.Fatal(err)
	}
	p := got.Workloads[0].Producer
	if p.DurationSeconds != 12 {
		t.Errorf("duration %g s, want 12 (0 to 12 s, the pause covered by worker 0)", p.DurationSeconds)
	}
	if want := float64(p.Records) / 12; p.RecordsPerSec != want {
		t.Errorf("records/s %g, want %g", p.RecordsPerSec, want)
	}
	if len(p.KbenchPauses) != 1 || p.KbenchPauses[0].AtSeconds != 5 {
		t.Errorf("pauses %+v, want one at 5 s from the merged start", p.KbenchPauses)
	}
	if st := p.SteadyState; st.DurationSeconds != 7 || !st.StartedAt.Equal(mergeStart.Add(steadyFrom*time.Second)) {
		t.Errorf("steady state %g s from %s, want 7 s from 5 s", st.DurationSeconds, st.StartedAt)
	}
	c := got.Workloads[1].Consumer
	if c.DurationSeconds != 12 {
		t.Errorf("consumer duration %g s, want 12", c.DurationSeconds)
	}
	if w := got.Workloads[1].Inexact; len(w) != 1 || !strings.HasPrefix(w[0], "consumer.reading_seconds") {
		t.Errorf("consumer notes %q, want reading_seconds flagged", w)
	}
}

// BenchmarkMergeRepeats1000 merges 1,000 workers' slices of a repeat of
// one producer and one consumer workload over 60 one-second intervals (the
// distributed issue's merge cost; 10 and 100 workers beside it).
func BenchmarkMergeRepeats1000(b *testing.B) { benchmarkMerge(b, 1000) }
func BenchmarkMergeRepeats100(b *testing.B)  { benchmarkMerge(b, 100) }
func BenchmarkMergeRepeats10(b *testing.B)   { benchmarkMerge(b, 10) }

func benchmarkMerge(b *testing.B, workers int) {
	// One worker's slice at 1,000 records/s; its copies share nothing the
	// merge changes.
	rep := newRun(5, 60_000, 60).repeat(b)
	reps := make([]Repeat, workers)
	for i := range reps {
		reps[i] = rep
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := MergeRepeats(reps); err != nil {
			b.Fatal(err)
		}
	}
}
