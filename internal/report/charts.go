package report

import (
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/units"
)

// chartData is what report.html draws, computed here so that the page only
// plots: series over time per repeat and workload, latency distribution
// curves per scenario, and each metric against the swept parameter.
type chartData struct {
	Scenarios []scenarioCharts `json:"scenarios"`
	// Distribution curves: one per scenario that measured the latency.
	Publish  []distCurve `json:"publish"`
	EndToEnd []distCurve `json:"end_to_end"`
	Matrix   *matrixData `json:"matrix,omitempty"`
}

type scenarioCharts struct {
	Name    string         `json:"name"`
	Repeats []repeatCharts `json:"repeats"`
	// From and To are every time chart's x range, in every repeat of the
	// scenario, so that its charts line up: from the earliest point (a
	// consumer joining its group before the first send is below 0) to
	// the latest (a verification read-back or an ISR recovery after the
	// workloads).
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

type repeatCharts struct {
	Index     int              `json:"index"`
	Status    string           `json:"status"`
	Workloads []workloadSeries `json:"workloads"`
	// Brokers are the brokers' figures over time, when the repeat kept
	// them (brokers.go).
	Brokers *brokerCharts `json:"brokers,omitempty"`
}

// workloadSeries is one workload's interval series. T is each interval's
// end in seconds since the repeat's first send (chartOrigin: the moment
// its faults' times count from, after the topics were prepared); a value
// is null where it was not measured.
type workloadSeries struct {
	Name string     `json:"name"`
	Type string     `json:"type"`
	T    []float64  `json:"t"`
	Rate []float64  `json:"rate"` // records/s
	MiB  []float64  `json:"mib"`  // MB/s (1024 × 1024 bytes of values)
	P50  []*float64 `json:"p50,omitempty"`
	P99  []*float64 `json:"p99,omitempty"`
	P999 []*float64 `json:"p999,omitempty"`
	Avg  []*float64 `json:"avg,omitempty"`
	Max  []*float64 `json:"max,omitempty"`
	// SteadyAt is where steady state began (the warm-up before it is
	// shaded); absent when the workload had no warm-up.
	SteadyAt *float64 `json:"steady_at,omitempty"`
	// LatencyOf says which latency the percentiles are: publish (send to
	// acknowledgement) or end-to-end (send to consume).
	LatencyOf string `json:"latency_of"`
	// RateAxis and LatencyAxis are how the throughput and latency charts
	// draw their y axes (axes.go).
	RateAxis    yAxis      `json:"rate_axis"`
	LatencyAxis yAxis      `json:"latency_axis"`
	LagT        []float64  `json:"lag_t,omitempty"`
	Lag         []int64    `json:"lag,omitempty"`
	Marks       []timeMark `json:"marks,omitempty"`
	// UnseenT and Unseen are a verified workload's acknowledged records
	// not yet read back, over time.
	UnseenT []float64 `json:"unseen_t,omitempty"`
	Unseen  []int64   `json:"unseen,omitempty"`
}

// timeMark is a moment to mark on the time-series charts.
type timeMark struct {
	At    float64 `json:"at"`
	Label string  `json:"label"`
}

// distCurve is a latency distribution: X is the number of nines of the
// percentile (0 = p0, 2 = p99, 4 = p99.99), Y the latency in ms there.
type distCurve struct {
	Scenario string    `json:"scenario"`
	Count    int64     `json:"count"`
	X        []float64 `json:"x"`
	Y        []float64 `json:"y"`
}

// distSteps is the resolution of a distribution curve: 20 points per nine.
const distSteps = 20

func buildCharts(run *result.PlanRun) (*chartData, error) {
	cd := &chartData{Publish: []distCurve{}, EndToEnd: []distCurve{}}
	split := perWorkload(run)
	for _, sc := range run.Scenarios {
		scc := scenarioCharts{Name: sc.Name}
		for _, rep := range sc.Repeats {
			rc := repeatCharts{Index: rep.Index, Status: rep.Status}
			scc.extend(rep.EndedAt.Sub(chartOrigin(rep)).Seconds())
			for _, w := range rep.Workloads {
				ws := workloadCharts(rep, w)
				for _, ts := range [][]float64{ws.T, ws.LagT, ws.UnseenT} {
					scc.extend(ts...)
				}
				for _, m := range ws.Marks {
					scc.extend(m.At)
				}
				rc.Workloads = append(rc.Workloads, ws)
			}
			rc.Brokers = brokerChartsOf(rep)
			scc.Repeats = append(scc.Repeats, rc)
		}
		scc.From, scc.To = round3(scc.From), round3(scc.To)
		for i := range scc.Repeats {
			scc.Repeats[i].Brokers.within(scc.From, scc.To)
		}
		cd.Scenarios = append(cd.Scenarios, scc)
		if a := sc.Aggregate; a != nil {
			type lat struct {
				name string
				lat  *result.Latency
				to   *[]distCurve
			}
			ls := []lat{{sc.Name, a.Latency, &cd.Publish}, {sc.Name, a.EndToEnd, &cd.EndToEnd}}
			if split { // a curve per workload: latencies are never merged
				ls = nil
				for _, w := range a.Workloads {
					name := sc.Name + " (" + w.Name + ")"
					ls = append(ls, lat{name, w.Latency, &cd.Publish}, lat{name, w.EndToEnd, &cd.EndToEnd})
				}
			}
			for _, l := range ls {
				if l.lat == nil || l.lat.Count == 0 {
					continue
				}
				c, err := curve(l.name, l.lat)
				if err != nil {
					return nil, err
				}
				*l.to = append(*l.to, c)
			}
		}
	}
	if len(run.Scenarios) > 1 {
		cd.Matrix = matrix(run)
	}
	return cd, nil
}

// extend widens the scenario's time range to hold ts.
func (sc *scenarioCharts) extend(ts ...float64) {
	for _, t := range ts {
		sc.From, sc.To = min(sc.From, t), max(sc.To, t)
	}
}

// chartOrigin is where a repeat's time charts start: its first send (the
// earliest first record a producer handed to its client), which is when
// its faults' times count from; not the repeat's start, which is before
// its topics were prepared. Without a send: its first interval, else the
// end of the topic setup.
func chartOrigin(rep result.Repeat) time.Time {
	var first time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for _, w := range rep.Workloads {
		if p := w.Producer; p != nil && p.FirstSendAt != nil {
			earliest(*p.FirstSendAt)
		}
	}
	if !first.IsZero() {
		return first
	}
	for _, w := range rep.Workloads {
		for _, ivs := range [][]result.Interval{producerIntervals(w), consumerIntervals(w)} {
			if len(ivs) > 0 {
				earliest(ivs[0].Start)
			}
		}
	}
	if !first.IsZero() {
		return first
	}
	return rep.StartedAt.Add(time.Duration(rep.SetupSeconds * float64(time.Second)))
}

func producerIntervals(w result.Workload) []result.Interval {
	if w.Producer == nil {
		return nil
	}
	return w.Producer.Intervals
}

func consumerIntervals(w result.Workload) []result.Interval {
	if w.Consumer == nil {
		return nil
	}
	return w.Consumer.Intervals
}

func workloadCharts(rep result.Repeat, w result.Workload) workloadSeries {
	ws := workloadSeries{Name: w.Name, Type: w.Type, LatencyOf: "publish", RateAxis: rateAxis()}
	t0 := chartOrigin(rep)
	var ivs []result.Interval
	switch {
	case w.Producer != nil:
		ivs = w.Producer.Intervals
	case w.Consumer != nil:
		ivs = w.Consumer.Intervals
		ws.LatencyOf = "end-to-end"
	}
	percentiles := w.Producer != nil
	warm := false
	for _, iv := range ivs {
		end := iv.Start.Sub(t0).Seconds() + iv.Seconds
		ws.T = append(ws.T, round3(end))
		ws.Rate = append(ws.Rate, round3(iv.RecordsPerSec))
		mib := 0.0
		if iv.Seconds > 0 {
			mib = float64(iv.Bytes) / iv.Seconds / (1 << 20)
		}
		ws.MiB = append(ws.MiB, round3(mib))
		empty := iv.Records == 0
		if percentiles {
			ws.P50 = append(ws.P50, opt(iv.P50LatencyMs, empty))
			ws.P99 = append(ws.P99, opt(iv.P99LatencyMs, empty))
			ws.P999 = append(ws.P999, opt(iv.P999LatencyMs, empty))
		} else {
			ws.Avg = append(ws.Avg, opt(iv.AvgLatencyMs, empty || iv.AvgLatencyMs == 0))
		}
		ws.Max = append(ws.Max, opt(iv.MaxLatencyMs, empty || iv.MaxLatencyMs == 0))
		if !iv.Steady {
			warm = true
		} else if warm && ws.SteadyAt == nil {
			at := round3(end - iv.Seconds)
			ws.SteadyAt = &at
		}
	}
	if p := w.Producer; p != nil && p.SteadyState != nil && p.SteadyState.StartedAt != nil {
		// Exactly where the steady-state figures begin, also inside the
		// first interval.
		at := round3(p.SteadyState.StartedAt.Sub(rep.StartedAt).Seconds())
		ws.SteadyAt = &at
	}
	if c := w.Consumer; c != nil && len(c.Lag) > 0 && len(ivs) > 0 {
		// Lag points count from the consumer's start: the first interval's
		// start less the elapsed time before it.
		first := ivs[0]
		started := first.Start.Sub(t0).Seconds() - (first.ElapsedSeconds - first.Seconds)
		for _, l := range c.Lag {
			ws.LagT = append(ws.LagT, round3(started+l.ElapsedSeconds))
			ws.Lag = append(ws.Lag, l.Records)
		}
	}
	ws.Marks = faultMarks(rep, t0)
	for _, v := range rep.Verification {
		if v.Workload != w.Name || len(v.Unseen) == 0 {
			continue
		}
		base := v.StartedAt.Sub(t0).Seconds()
		for _, p := range v.Unseen {
			ws.UnseenT = append(ws.UnseenT, round3(base+p.Seconds))
			ws.Unseen = append(ws.Unseen, p.Unseen)
		}
	}
	if c := w.CatchUp; c != nil && len(ivs) > 0 {
		first := ivs[0]
		started := first.Start.Sub(t0).Seconds() - (first.ElapsedSeconds - first.Seconds)
		ws.Marks = append(ws.Marks, timeMark{At: round3(started), Label: "consumer starts"})
		if c.DrainSeconds > 0 {
			ws.Marks = append(ws.Marks, timeMark{At: round3(started + c.DrainSeconds), Label: "caught up"})
		}
	}
	ws.LatencyAxis = latencyAxis(ws.P50, ws.P99, ws.P999, ws.Avg, ws.Max)
	return ws
}

// faultMarks are the repeat's faults as marks on its time charts: each
// fault acted, and the leaders' election and the ISR's shrink and
// recovery it measured.
func faultMarks(rep result.Repeat, t0 time.Time) []timeMark {
	var marks []timeMark
	for _, f := range rep.Faults {
		if f.Time.IsZero() || f.Status == "not reached" || f.Status == "skipped" {
			continue
		}
		at := f.Time.Sub(t0).Seconds()
		what := f.Action
		if f.Broker >= 0 {
			what += " " + strconv.Itoa(int(f.Broker))
		}
		marks = append(marks, timeMark{At: round3(at), Label: what})
		if f.ElectionMs != nil {
			marks = append(marks, timeMark{At: round3(at + *f.ElectionMs/1000), Label: "leaders elected"})
		}
		if f.ISRShrunkMs != nil {
			marks = append(marks, timeMark{At: round3(at + *f.ISRShrunkMs/1000), Label: "ISR shrunk"})
		}
		if f.ISRRecoveredMs != nil {
			marks = append(marks, timeMark{At: round3(at + *f.ISRRecoveredMs/1000), Label: "ISR full"})
		}
	}
	return marks
}

// curve samples a latency histogram's percentiles from p0 to p99.99, evenly
// in nines, and ends on the exact maximum.
func curve(name string, l *result.Latency) (distCurve, error) {
	h, err := l.Decode()
	if err != nil {
		return distCurve{}, err
	}
	c := distCurve{Scenario: name, Count: l.Count}
	for i := 0; i <= 4*distSteps; i++ {
		x := float64(i) / distSteps
		q := 1 - math.Pow(10, -x)
		c.X = append(c.X, x)
		c.Y = append(c.Y, round3(float64(h.Quantile(q))/1000))
	}
	c.X = append(c.X, 4.5) // "max", drawn past p99.99
	c.Y = append(c.Y, round3(float64(l.Max)/1000))
	return c, nil
}

func opt(v float64, missing bool) *float64 {
	if missing {
		return nil
	}
	return ptr(round3(v))
}

func ptr(v float64) *float64 { return &v }

// round3 keeps 3 decimals, or 3 significant digits under 1 as the tables
// do (units.Figure; 0.0048 MB/s was 0.005): the page's data stays small
// and no chart can show more.
func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow10(units.FigureDecimals(v, 3))
	return math.Round(v*p) / p
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
