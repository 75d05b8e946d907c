package report

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kbench/kbench/internal/browsertest"
	"github.com/kbench/kbench/internal/result"
)

// brokerStepsDoc is faultDoc with two local brokers' CPU and request
// handlers' busy share kept a step a second from the repeat's start (the
// samplers start before the topics are prepared, 2 s before the first
// send); broker 2 was killed at 8 s and is empty until its restart.
func brokerStepsDoc(t testing.TB) *result.Document {
	t.Helper()
	doc := faultDoc(t)
	for r := range doc.Plan.Scenarios[0].Repeats {
		rep := &doc.Plan.Scenarios[0].Repeats[r]
		for id := 1; id <= 2; id++ {
			cpu, idle := result.NewRatios(rep.StartedAt, time.Second), result.NewRatios(rep.StartedAt, time.Second)
			for s := range 42 {
				if id == 2 && s >= 10 && s < 12 {
					continue // killed at 8 s after the first send, back at 10 s
				}
				cpu.Add(float64(s), float64(s+1), 0.5*float64(id)+0.01*float64(s), 1)
				idle.Add(float64(s), float64(s+1), 0.9-0.2*float64(id), 1)
			}
			rep.Brokers = append(rep.Brokers, result.BrokerCost{ID: id, CPUSeconds: 30, Processes: 1, CPUCores: cpu.Steps(result.Cores, 2),
				Kafka: &result.KafkaMetrics{HandlerBusy: idle.Steps(result.BusyPct, 1)}})
		}
	}
	return doc
}

// TestBrokerCharts: the brokers' steps are drawn on the scenario's clock
// (from the first send, so the samplers' first steps, before it, are
// below 0), a line per broker, empty while a broker was down, and marked
// with the faults as the workloads' charts are.
func TestBrokerCharts(t *testing.T) {
	cd, err := buildCharts(brokerStepsDoc(t).Plan)
	if err != nil {
		t.Fatal(err)
	}
	b := cd.Scenarios[0].Repeats[0].Brokers
	if b == nil || b.CPU == nil || b.Busy == nil {
		t.Fatalf("broker charts %+v, want CPU and busy series", b)
	}
	for _, s := range []*brokerSeries{b.CPU, b.Busy} {
		if len(s.Names) != 2 || s.Names[0] != "broker 1" || s.Names[1] != "broker 2" || len(s.Values) != 2 {
			t.Errorf("lines %q, want broker 1 and broker 2", s.Names)
		}
		if len(s.T) != 42 || s.T[0] != -1 || s.T[41] != 40 {
			t.Errorf("steps end at %v…, want 42 from -1 s (the first, before the first send) to 40 s", s.T[:min(3, len(s.T))])
		}
	}
	if v := b.CPU.Values[1]; v[9] == nil || v[10] != nil || v[11] != nil || v[12] == nil || *v[0] != 1 {
		t.Errorf("broker 2's cores around its outage: %v %v %v %v, want a value, two nulls, a value; first 1", v[9], v[10], v[11], v[12])
	}
	if v := b.Busy.Values[0][0]; v == nil || *v != 30 {
		t.Errorf("broker 1 busy %v, want 30%%", v)
	}
	kill := false
	for _, m := range b.Marks {
		kill = kill || m.Label == "kill 2" && m.At == 8
	}
	if !kill {
		t.Errorf("marks %+v, want the kill at 8 s", b.Marks)
	}
	if sc := cd.Scenarios[0]; sc.From != 0 {
		t.Errorf("the scenario's range starts at %v s, want 0: the brokers do not widen it", sc.From)
	}
	// A rate search's repeat: the brokers were read through 5 minutes of
	// probes before the run its workloads' charts show; those steps are
	// left out, not drawn as a 5-minute range.
	search := brokerStepsDoc(t)
	for r := range search.Plan.Scenarios[0].Repeats {
		for i := range search.Plan.Scenarios[0].Repeats[r].Brokers {
			b := &search.Plan.Scenarios[0].Repeats[r].Brokers[i]
			b.CPUCores.Start = b.CPUCores.Start.Add(-300 * time.Second)
			b.CPUCores.Values = append(make([]*float64, 300), b.CPUCores.Values...)
		}
	}
	cd, err = buildCharts(search.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if sc := cd.Scenarios[0]; sc.From != 0 || len(sc.Repeats[0].Brokers.CPU.T) != 42 || sc.Repeats[0].Brokers.CPU.T[0] != -1 {
		t.Errorf("range from %v s, CPU steps from %v s (%d of them); want 0, and the 42 steps from -1 s", sc.From, sc.Repeats[0].Brokers.CPU.T[0], len(sc.Repeats[0].Brokers.CPU.T))
	}
	old := brokerStepsDoc(t)
	for r := range old.Plan.Scenarios[0].Repeats {
		for i := range old.Plan.Scenarios[0].Repeats[r].Brokers {
			b := &old.Plan.Scenarios[0].Repeats[r].Brokers[i]
			b.CPUCores, b.Kafka = nil, nil
			b.Samples = []result.BrokerPoint{{Seconds: 1, CPUSeconds: 1}}
		}
	}
	if cd, err := buildCharts(old.Plan); err != nil || cd.Scenarios[0].Repeats[0].Brokers != nil {
		t.Errorf("a result from before the steps has broker charts %+v (%v), want none", cd.Scenarios[0].Repeats[0].Brokers, err)
	}
}

// TestBrokerChartsInBrowser: the page draws the brokers' CPU and busy
// charts from file://, a line per broker, with the faults' marks.
func TestBrokerChartsInBrowser(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, brokerStepsDoc(t)); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	type drawn struct {
		Title  string
		Lines  int
		Labels []string
	}
	var brokers []drawn
	look := chromedp.Evaluate(`window.KBENCH_CHARTS.filter(c => /^(Broker CPU|Request handlers)/.test(c.title)).map(c => ({title: c.title, lines: c.plot.series.length - 1, labels: (c.plot.kbenchLabels || []).map(l => l.label)}))`, &brokers)
	charts, errs, reqs := browsertest.Open(t, page, look)
	if len(errs) > 0 || len(reqs) > 0 {
		t.Errorf("console errors %q, requests %q", errs, reqs)
	}
	if len(brokers) != 2 {
		t.Fatalf("broker charts %+v, want CPU and request handlers busy", brokers)
	}
	for _, c := range brokers {
		kill := false
		for _, l := range c.Labels {
			kill = kill || l == "kill 2"
		}
		if c.Lines != 2 || !kill {
			t.Errorf("chart %q: %d lines, labels %q; want 2 lines and the kill marked", c.Title, c.Lines, c.Labels)
		}
	}
	for _, c := range charts {
		if c.Points == 0 {
			t.Errorf("chart %q has no data", c.Title)
		}
	}
	browsertest.Screenshot(t, page, "report-brokers.png")
}
