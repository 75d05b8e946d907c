package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/ombresult"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/study"
)

// checkOMBResult checks a run's omb-result.json against its result.json
// and the topics' offsets (held: records in each topic): every record
// acknowledged and read is in one period or in the warm-up, and the
// aggregated percentiles are kbench's histograms' in OMB's milliseconds.
// src is the OMB files loaded again (topic and subscription names are
// random per translation: the repeat's are used).
func checkOMBResult(t *testing.T, out string, doc *result.Document, held map[string]int64, src *plan.OMBSource) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, ombresult.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("omb-result.json: %v", err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	run := study.OMBRun(src)
	run.Producers, run.Consumers = workloadsOf(rep)
	built, err := ombresult.Build(rep, run)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(built.JSON(), b) {
		t.Errorf("omb-result.json is not OMB's result of result.json:\n%s\nwant\n%s", b, built.JSON())
	}
	rates := func(name string) []float64 {
		var out []float64
		for _, v := range file[name].([]any) {
			out = append(out, v.(float64))
		}
		return out
	}
	count := func(rs []float64) (n int64) {
		for i, r := range rs {
			n += int64(math.Round(r * built.PeriodSeconds[i]))
		}
		return n
	}
	var acked, read, warmAcked, warmRead, offsets int64
	inWarmup := warmupOf(rep, run.Warmup)
	for _, w := range rep.Workloads {
		switch {
		case w.Producer != nil:
			acked += w.Producer.Records
			offsets += held[w.Topic.Name]
			for _, iv := range w.Producer.Intervals {
				if inWarmup(iv) {
					warmAcked += iv.Records
				}
			}
		case w.Consumer != nil:
			read += w.Consumer.Records
			for _, iv := range w.Consumer.Intervals {
				if inWarmup(iv) {
					warmRead += iv.Records
				}
			}
		}
	}
	if got := count(rates("publishRate")) + warmAcked; got != acked || acked != offsets {
		t.Errorf("publishRate counts %d records (with the warm-up's %d); result.json %d, the topics' offsets %d", got, warmAcked, acked, offsets)
	}
	if got := count(rates("consumeRate")) + warmRead; got != read {
		t.Errorf("consumeRate counts %d records (with the warm-up's %d); result.json %d", got, warmRead, read)
	}
	checkOMBLatency(t, file, rep, inWarmup)
	checkOMBPeriods(t, file, rep)
	// OMB's backlog: acknowledged less read at each period's end; the
	// last period ends with the producers, before the consumers read
	// their last records.
	for _, bl := range rates("backlog") {
		if bl < 0 || int64(bl) > acked {
			t.Errorf("backlog %v: want 0 to the %d records acknowledged", rates("backlog"), acked)
		}
	}
}

// workloadsOf names a repeat's produce and consume workloads.
func workloadsOf(rep result.Repeat) (producers, consumers []string) {
	for _, w := range rep.Workloads {
		switch w.Type {
		case "produce":
			producers = append(producers, w.Name)
		case "consume":
			consumers = append(consumers, w.Name)
		}
	}
	return producers, consumers
}

// checkOMBLatency: the aggregated publish and end-to-end figures are
// kbench's percentiles (µs) in OMB's milliseconds, where one workload
// measured each: the producer's steady state as result.json gives it, the
// consumer's end-to-end latency after the warm-up from its intervals'
// histograms (OMB leaves the warm-up out).
func checkOMBLatency(t *testing.T, file map[string]any, rep result.Repeat, inWarmup func(result.Interval) bool) {
	t.Helper()
	var pub, e2e []*result.Latency
	for _, w := range rep.Workloads {
		if w.Producer != nil {
			steady := w.Producer
			if w.Producer.SteadyState != nil {
				steady = w.Producer.SteadyState
			}
			pub = append(pub, &steady.Latency)
			// On a schedule, every acknowledged record's send delay.
			d := steady.PublishDelay
			if d == nil || d.Count != steady.Latency.Count {
				t.Fatalf("workload %s: publish delay %+v, want one per acknowledged record (%d)", w.Name, d, steady.Latency.Count)
			}
			if len(rep.Workloads) == 2 {
				for suffix, us := range map[string]int64{"50pct": d.P50, "99pct": d.P99, "Max": d.Max} {
					if got, _ := file["aggregatedPublishDelayLatency"+suffix].(float64); int64(got) != us {
						t.Errorf("aggregatedPublishDelayLatency%s = %v µs, result.json %d µs", suffix, got, us)
					}
				}
			}
		}
		if w.EndToEnd != nil {
			e2e = append(e2e, testEndToEnd(t, w, inWarmup))
		}
	}
	for _, c := range []struct {
		prefix string
		lats   []*result.Latency
	}{{"aggregatedPublishLatency", pub}, {"aggregatedEndToEndLatency", e2e}} {
		if len(c.lats) != 1 {
			continue
		}
		l := c.lats[0]
		for suffix, us := range map[string]int64{"50pct": l.P50, "95pct": l.P95, "99pct": l.P99, "999pct": l.P999, "9999pct": l.P9999, "Max": l.Max} {
			got, _ := file[c.prefix+suffix].(float64)
			if math.Abs(got*1000-float64(us)) > 1e-6 {
				t.Errorf("%s%s = %v ms, result.json %d µs", c.prefix, suffix, got, us)
			}
		}
		if got, _ := file[c.prefix+"Avg"].(float64); math.Abs(got*1000-l.Mean) > 1e-6 {
			t.Errorf("%sAvg = %v ms, result.json %v µs", c.prefix, got, l.Mean)
		}
	}
}

// checkOMBPeriods: every period that published has its latency figures,
// ordered (p50 ≤ p99 ≤ max) and within the run's exact maximum.
func checkOMBPeriods(t *testing.T, file map[string]any, rep result.Repeat) {
	t.Helper()
	var pubMax, e2eMax int64
	for _, w := range rep.Workloads {
		if w.Producer != nil {
			pubMax = max(pubMax, w.Producer.Latency.Max)
		}
		if w.EndToEnd != nil {
			e2eMax = max(e2eMax, w.EndToEnd.Max)
		}
	}
	list := func(name string) []float64 {
		var out []float64
		for _, v := range file[name].([]any) {
			out = append(out, v.(float64))
		}
		return out
	}
	rates := list("publishRate")
	for _, c := range []struct {
		prefix string
		maxMs  float64
	}{{"publishLatency", float64(pubMax) / 1000}, {"endToEndLatency", float64(e2eMax) / 1000}} {
		p50, p99, mx := list(c.prefix+"50pct"), list(c.prefix+"99pct"), list(c.prefix+"Max")
		if len(p50) != len(rates) || len(p99) != len(rates) || len(mx) != len(rates) {
			t.Fatalf("%s: %d, %d and %d periods, publishRate %d", c.prefix, len(p50), len(p99), len(mx), len(rates))
		}
		for k := range rates {
			if rates[k] > 0 && (p50[k] <= 0 || p50[k] > p99[k] || p99[k] > mx[k] || mx[k] > c.maxMs+1e-9) {
				t.Errorf("%s period %d: p50 %v p99 %v max %v ms, the run's max %v ms", c.prefix, k, p50[k], p99[k], mx[k], c.maxMs)
			}
		}
	}
}

// testEndToEnd is a consume workload's end-to-end latency after the
// warm-up: its intervals' histograms merged, with their exact max and mean.
func testEndToEnd(t *testing.T, w result.Workload, inWarmup func(result.Interval) bool) *result.Latency {
	t.Helper()
	h := measure.NewHistogram()
	var sum float64
	var maxUs int64
	for _, iv := range w.Consumer.Intervals {
		if inWarmup(iv) || iv.EndToEndHistogram == "" {
			continue
		}
		ih, err := measure.Decode(iv.EndToEndHistogram)
		if err != nil {
			t.Fatal(err)
		}
		h.Merge(ih)
		sum += iv.AvgLatencyMs * 1000 * float64(ih.Count())
		maxUs = max(maxUs, int64(math.Round(iv.MaxLatencyMs*1000)))
	}
	if h.Count() == 0 {
		t.Fatalf("consumer %s: no end-to-end histogram after the warm-up", w.Name)
	}
	h.SetExact(h.Count(), int64(math.Round(sum)), min(h.Min(), maxUs), maxUs, h.OverRange(), 0)
	l, err := result.LatencyOf(h)
	if err != nil {
		t.Fatal(err)
	}
	return &l
}

// warmupOf says whether an interval is in the warm-up: its middle before
// the first producer's start plus the warm-up.
func warmupOf(rep result.Repeat, warmup time.Duration) func(result.Interval) bool {
	var testStart time.Time
	for _, w := range rep.Workloads {
		if w.Producer != nil && len(w.Producer.Intervals) > 0 {
			if s := w.Producer.Intervals[0].Start; testStart.IsZero() || s.Before(testStart) {
				testStart = s
			}
		}
	}
	testStart = testStart.Add(warmup)
	return func(iv result.Interval) bool {
		return iv.Start.Add(time.Duration(iv.Seconds * float64(time.Second) / 2)).Before(testStart)
	}
}
