package study

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/observe"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestRateMaxConfirmsOnARealBroker: a rate: max search on the real broker
// warms it at full speed, judges each probe on enough records for its
// percentile, and answers only a confirmed rate: its last confirmation
// round kept the SLO in every run and the repeat's result is a run at
// that rate. Reliable by design: the SLO (p99 ≤ 10 s) holds at any rate
// the broker takes, and a ceiling of 8,000 records/s keeps the search in
// a band one local broker takes ten times over (regression: without a
// ceiling the search climbed past 200,000 records/s on 1 s probes, where
// confirmations reached under 95% of the rate asked in about half the
// runs). The search ends at the ceiling and the confirmation confirms it.
func TestRateMaxConfirmsOnARealBroker(t *testing.T) {
	bootstrap := testkafka.Bootstrap(t)
	topic := fmt.Sprintf("it-max-rate-%d", time.Now().UnixNano())
	text := fmt.Sprintf(`name: it-max-rate
cluster: {bootstrap: "%s"}
topics: [{name: %s, partitions: 2, replication: 1}]
workloads:
  - name: p
    type: produce
    topic: %s
    properties: {acks: 1}
    message: {size: 1KiB}
    rate: max
    slo: {p99: 10s, start: 2k/s, ceiling: 8k/s, probes: 1, confirm: 2, warm_cluster: 1s}
    duration: 2s
`, bootstrap, topic, topic)
	p, err := plan.Parse("plan.yaml", []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	obs := &probeRecorder{}
	doc, err := Run(ctx, p, scs, Options{Observer: obs})
	if err != nil {
		if doc != nil {
			for _, r := range doc.Plan.Scenarios[0].Repeats {
				for _, w := range r.Workloads {
					if w.MaxRate != nil {
						t.Logf("probes %+v", w.MaxRate.Probes)
					}
					if w.Producer != nil {
						t.Logf("producer failed %d errors %v", w.Producer.Failed, w.Producer.Errors)
					}
				}
			}
		}
		t.Fatalf("Run: %v", err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || len(rep.Workloads) != 1 || rep.Workloads[0].MaxRate == nil {
		t.Fatalf("repeat %s (%s), workloads %+v: want an ok search", rep.Status, rep.Error, rep.Workloads)
	}
	m := rep.Workloads[0].MaxRate
	if len(m.Probes) == 0 || !m.Probes[0].Warmup || m.Probes[0].Rate != 0 || m.FullSpeed <= 0 {
		t.Fatalf("probes %+v, full speed %.0f: want a full-speed warm-up first", m.Probes, m.FullSpeed)
	}
	for _, pr := range m.Probes[1:] {
		if pr.Warmup || pr.Records < 2000 {
			t.Errorf("probe %+v: want judged, on at least 2,000 records (p99)", pr)
		}
	}
	if m.Found != 8000 || m.Stopped != "ceiling" || m.Limit != "not reached" {
		t.Errorf("found %.0f, stopped %q, limit %q: want the ceiling, 8000 records/s", m.Found, m.Stopped, m.Limit)
	}
	for _, pr := range m.Probes {
		if pr.Rate > 8000 {
			t.Errorf("probe %+v above the ceiling", pr)
		}
	}
	n := len(m.Confirmations)
	if n == 0 || m.Rate <= 0 || m.Rate > m.Found {
		t.Fatalf("rate %.0f, found %.0f, confirmations %+v: want a confirmed rate at or below the search's", m.Rate, m.Found, m.Confirmations)
	}
	if c := m.Confirmations[n-1]; !c.Confirmed || c.Rate != m.Rate || c.Runs != 2 || c.Met != 2 || c.Needed != 2 {
		t.Errorf("last confirmation %+v: want 2 of 2 runs at %.0f", c, m.Rate)
	}
	if m.LastMet < m.Rate || (m.FirstMissed != 0 && m.FirstMissed <= m.LastMet) {
		t.Errorf("last met %.0f, first missed %.0f around the answer %.0f", m.LastMet, m.FirstMissed, m.Rate)
	}
	// Each run is announced as it starts, and the records the observer
	// sees between two announcements are that run's own.
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.runs) != len(m.Probes) {
		t.Errorf("%d runs announced, %d run", len(obs.runs), len(m.Probes))
	} else {
		for i, pr := range m.Probes {
			if got := obs.runs[i]; got.info.Rate != pr.Rate || got.records != pr.Sent {
				t.Errorf("run %d announced at %.0f records/s with %d records observed; it ran at %.0f and sent %d", i, got.info.Rate, got.records, pr.Rate, pr.Sent)
			}
		}
	}
	prod := rep.Workloads[0].Producer
	if prod == nil || prod.Records == 0 || prod.RecordsPerSec > 1.2*m.Rate {
		t.Errorf("the repeat's producer %+v: want a confirming run at %.0f records/s", prod, m.Rate)
	}
}

// probeRecorder records the rate search's runs as announced and the
// records observed during each.
type probeRecorder struct {
	mu   sync.Mutex
	runs []struct {
		info    observe.ProbeInfo
		records int64
	}
}

func (o *probeRecorder) ProbeStarted(pi observe.ProbeInfo) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.runs = append(o.runs, struct {
		info    observe.ProbeInfo
		records int64
	}{info: pi})
}

func (o *probeRecorder) ProducerInterval(_ string, iv measure.Interval) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.runs); n > 0 {
		o.runs[n-1].records += iv.Count
	}
}

func (*probeRecorder) RepeatStarted(observe.RepeatInfo)                  {}
func (*probeRecorder) ConsumerInterval(string, measure.ConsumerInterval) {}
func (*probeRecorder) ConsumerLag(string, int64)                         {}
func (*probeRecorder) RepeatEnded(observe.RepeatInfo, result.Repeat)     {}
