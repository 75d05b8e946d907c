package result

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// activity is when one worker's workload ran on the common clock: from
// its start to its end, less the stretches in which kbench itself did not
// run (its pauses, which the rates leave out).
type activity struct {
	from, to time.Time
	pauses   []span
}

type span struct{ from, to time.Time }

// workloadStart is when a workload started, read from its interval series:
// each interval ends ElapsedSeconds after the start (false: no series).
func workloadStart(ivs []Interval) (time.Time, bool) {
	if len(ivs) == 0 {
		return time.Time{}, false
	}
	iv := ivs[0]
	return iv.Start.Add(seconds(iv.Seconds - iv.ElapsedSeconds)), true
}

// producerActivity places a producer's sending time on the clock: from
// its start, for DurationSeconds plus the pauses within (the producer
// divides by its end less its start less its pauses, and pauses happen
// while it runs).
func producerActivity(p *Producer) (activity, bool) {
	start, ok := workloadStart(p.Intervals)
	if !ok {
		return activity{}, false
	}
	a := activity{from: start}
	for _, ps := range p.KbenchPauses {
		at := start.Add(seconds(ps.AtSeconds))
		a.pauses = append(a.pauses, span{at, at.Add(seconds(ps.Seconds))})
	}
	a.to = a.endAfter(start, p.DurationSeconds)
	return a, true
}

// endAfter is when a window that began at from and ran d seconds, less
// a's pauses after from, ended.
func (a activity) endAfter(from time.Time, d float64) time.Time {
	end := from.Add(seconds(d))
	for _, p := range a.pauses {
		if p.to.After(from) {
			end = end.Add(p.to.Sub(laterOf(p.from, from)))
		}
	}
	return end
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// activeSeconds is how long at least one of the activities ran (not
// paused): the time merged rates divide by, as one process's divide by
// its own.
func activeSeconds(as []activity) float64 {
	var segs []span
	for _, a := range as {
		from := a.from
		ps := slices.Clone(a.pauses)
		slices.SortFunc(ps, func(x, y span) int { return x.from.Compare(y.from) })
		for _, p := range ps {
			if !p.to.After(from) || !p.from.Before(a.to) {
				continue
			}
			if p.from.After(from) {
				segs = append(segs, span{from, p.from})
			}
			from = p.to
		}
		if a.to.After(from) {
			segs = append(segs, span{from, a.to})
		}
	}
	slices.SortFunc(segs, func(x, y span) int { return x.from.Compare(y.from) })
	var total time.Duration
	var cur span
	for i, s := range segs {
		switch {
		case i == 0:
			cur = s
		case s.from.After(cur.to):
			total += cur.to.Sub(cur.from)
			cur = s
		case s.to.After(cur.to):
			cur.to = s.to
		}
	}
	if len(segs) > 0 {
		total += cur.to.Sub(cur.from)
	}
	return total.Seconds()
}

// mergeProducers merges the producers of one workload's slices (workers
// holds each one's worker index): their counts and latencies add
// (Producer.Add); their sending times, series and plateaus are placed on
// the common clock.
func mergeProducers(ps []*Producer, workers []int, notes *inexact) (*Producer, error) {
	out := &Producer{LatencyFrom: ps[0].LatencyFrom, Format: ps[0].Format}
	series := make([][]Interval, 0, len(ps))
	acts := make([]activity, 0, len(ps))
	placed := true // every worker's sending time is on the clock
	var perRecord bool
	var balanced int
	for i, p := range ps {
		if err := out.Add(p); err != nil {
			return nil, fmt.Errorf("worker %d: %w", workers[i], err)
		}
		perRecord = perRecord || p.BytesPerRecord > 0
		series = append(series, p.Intervals)
		a, ok := producerActivity(p)
		placed = placed && ok
		acts = append(acts, a)
		if len(p.BalancedRates) > 0 {
			balanced++
		}
	}
	if balanced > 1 {
		notes.add("producer.balanced_rates: the %d workers' searches summed step by step, each stepping on its own clock", balanced)
	}
	var err error
	if out.Intervals, err = mergeSeriesOf(series); err != nil {
		return nil, fmt.Errorf("intervals: %w", err)
	}
	start := out.mergeTime(ps, acts, placed, workers, notes)
	if out.Plateaus, err = mergePlateaus(ps, acts, placed, start, notes); err != nil {
		return nil, fmt.Errorf("plateaus: %w", err)
	}
	out.setRates()
	if perRecord && out.Records > 0 {
		out.BytesPerRecord = float64(out.Bytes) / float64(out.Records)
	}
	// CPUMicrosPerRecord is the whole repeat's (cpuPerRecord): marked here.
	for _, p := range ps {
		if p.CPUMicrosPerRecord > 0 {
			out.CPUMicrosPerRecord = p.CPUMicrosPerRecord
		}
	}
	return out, nil
}

// mergeTime sets the merged sending time and pauses, and returns the
// merged start (zero when a worker's is unknown).
func (out *Producer) mergeTime(ps []*Producer, acts []activity, placed bool, workers []int, notes *inexact) time.Time {
	switch {
	case len(ps) == 1:
		out.DurationSeconds, out.KbenchPauses = ps[0].DurationSeconds, ps[0].KbenchPauses
		return acts[0].from
	case !placed:
		// Without a series a worker's start is unknown: the workers
		// began together (their barrier), the longest sent longest.
		var longest int
		for i, p := range ps {
			if p.DurationSeconds > ps[longest].DurationSeconds {
				longest = i
			}
			out.KbenchPauses = append(out.KbenchPauses, p.KbenchPauses...)
		}
		out.DurationSeconds = ps[longest].DurationSeconds
		notes.add("producer.duration_seconds, records_per_sec, mib_per_sec, kbench_pauses: over worker %d's sending time, the longest, each worker's pauses from its own start (a slice without an interval series has no start on the clock)", workers[longest])
		return time.Time{}
	}
	start := acts[0].from
	for _, a := range acts {
		start = earliest(start, a.from)
	}
	for _, a := range acts {
		for _, p := range a.pauses {
			out.KbenchPauses = append(out.KbenchPauses, Pause{AtSeconds: p.from.Sub(start).Seconds(), Seconds: p.to.Sub(p.from).Seconds()})
		}
	}
	slices.SortStableFunc(out.KbenchPauses, func(a, b Pause) int { return cmpFloat(a.AtSeconds, b.AtSeconds) })
	// A worker's pause stops only its own share: the merged time leaves
	// out only the stretches in which no worker sent.
	out.DurationSeconds = activeSeconds(acts)
	return start
}

// setRates computes the rates from the counts and the sending time, as
// the runner does.
func (out *Producer) setRates() {
	out.RecordsPerSec, out.MiBPerSec = 0, 0
	if secs := out.DurationSeconds; secs > 0 {
		out.RecordsPerSec = float64(out.Records) / secs
		out.MiBPerSec = float64(out.Bytes) / secs / (1024 * 1024)
	}
}

// mergeSteady merges the steady states of producers (each has one): the
// window from the earliest warm-up end to the end of sending, less the
// time no worker sent.
func mergeSteady(ps []*Producer, notes *inexact) (*Producer, error) {
	first := ps[0].SteadyState
	out := &Producer{LatencyFrom: first.LatencyFrom}
	acts := make([]activity, 0, len(ps))
	placed := true
	var ackEnd time.Time // the latest warm-up end on the acknowledgement timeline
	for _, p := range ps {
		st := p.SteadyState
		if err := out.addSteady(st); err != nil {
			return nil, err
		}
		a, ok := producerActivity(p)
		if !ok || st.StartedAt == nil {
			placed = false
			continue
		}
		a.from = *st.StartedAt
		a.to = a.endAfter(a.from, st.DurationSeconds)
		acts = append(acts, a)
		if e := st.StartedAt.Add(seconds(st.WarmupAckLagMs / 1000)); e.After(ackEnd) {
			ackEnd = e
		}
	}
	switch {
	case len(ps) == 1:
		out.DurationSeconds, out.WarmupAckLagMs = first.DurationSeconds, first.WarmupAckLagMs
	case !placed:
		for _, p := range ps {
			out.DurationSeconds = max(out.DurationSeconds, p.SteadyState.DurationSeconds)
			out.WarmupAckLagMs = max(out.WarmupAckLagMs, p.SteadyState.WarmupAckLagMs)
		}
		notes.add("producer.steady_state.duration_seconds, records_per_sec, mib_per_sec, warmup_ack_lag_ms: the longest worker's (a slice without an interval series or steady start has no place on the clock)")
	default:
		out.DurationSeconds = activeSeconds(acts)
		out.WarmupAckLagMs = float64(ackEnd.Sub(*out.StartedAt).Microseconds()) / 1000
	}
	out.setRates()
	return out, nil
}

// mergeLatency is MergeLatencies as a value.
func mergeLatency(ls []*Latency) (Latency, error) {
	l, err := MergeLatencies(ls)
	if err != nil {
		return Latency{}, err
	}
	return *l, nil
}

// WorkerAlignment is how far apart two workers' intervals may start and
// still be one interval of the merge: each worker closes its intervals on
// the same grid of its own clock, on a timer that fires a moment late, and
// the clocks differ by their offsets (result.Distributed.Clocks).
const WorkerAlignment = 50 * time.Millisecond

// mergeSeriesOf merges the workers' series; one series is kept as it is,
// its columns the reporter's own.
func mergeSeriesOf(series [][]Interval) ([]Interval, error) {
	if len(series) == 1 {
		return series[0], nil
	}
	return mergeSeriesWithin(WorkerAlignment, series...)
}

// Add adds o's transactions to t's: counts add up, commit latencies
// merge exactly.
func (t *Transactions) Add(o *Transactions) error {
	t.Committed += o.Committed
	t.Aborted += o.Aborted
	t.Failed += o.Failed
	t.CommittedRecords += o.CommittedRecords
	t.AbortedRecords += o.AbortedRecords
	if err := t.CommitLatency.Add(&o.CommitLatency); err != nil {
		return fmt.Errorf("commit latency: %w", err)
	}
	return nil
}

// mergePlateaus merges the workers' ramps plateau by plateau: each worker
// ran its share of the users, so the users add up, and a plateau spans
// the workers' own, moved onto the merged start.
func mergePlateaus(ps []*Producer, acts []activity, placed bool, start time.Time, notes *inexact) ([]Plateau, error) {
	var n, ramps int
	for _, p := range ps {
		n = max(n, len(p.Plateaus))
		if len(p.Plateaus) > 0 {
			ramps++
		}
	}
	if ramps == 0 {
		return nil, nil
	}
	if ramps == 1 && len(ps) == 1 {
		return ps[0].Plateaus, nil
	}
	out := make([]Plateau, n)
	apart := false
	for k := range out {
		m := &out[k]
		var lats []*Latency
		set := false
		for i, p := range ps {
			if k >= len(p.Plateaus) {
				continue
			}
			pl := p.Plateaus[k]
			var shift float64
			if placed {
				shift = acts[i].from.Sub(start).Seconds()
			}
			from, to := pl.FromSeconds+shift, pl.ToSeconds+shift
			if set && (from != m.FromSeconds || to != m.ToSeconds) {
				apart = true
			}
			if !set {
				m.FromSeconds, m.ToSeconds, set = from, to, true
			}
			m.FromSeconds, m.ToSeconds = min(m.FromSeconds, from), max(m.ToSeconds, to)
			m.VUs += pl.VUs
			m.Records += pl.Records
			lats = append(lats, &pl.Latency)
		}
		var err error
		if m.Latency, err = mergeLatency(lats); err != nil {
			return nil, fmt.Errorf("plateau %d: %w", k, err)
		}
		m.little()
	}
	if apart || !placed {
		notes.add("producer.plateaus: each from the earliest worker's start of it to the latest's end, the records/s over that span (the workers' ramps did not step at one instant)")
	}
	return out, nil
}

// little sets a plateau's rate, percentiles and Little's law's check from
// its records, span and latency, as the runner does.
func (p *Plateau) little() {
	p.RecordsPerSec, p.P50Ms, p.P99Ms, p.MeanMs, p.LittleUsers, p.LittleRatio = 0, 0, 0, 0, 0, 0
	if secs := p.ToSeconds - p.FromSeconds; secs > 0 {
		p.RecordsPerSec = float64(p.Records) / secs
	}
	if p.Records > 0 {
		p.P50Ms = float64(p.Latency.P50) / 1000
		p.P99Ms = float64(p.Latency.P99) / 1000
		p.MeanMs = p.Latency.Mean / 1000
		p.LittleUsers = p.RecordsPerSec * p.MeanMs / 1000
		if p.VUs > 0 {
			p.LittleRatio = p.LittleUsers / float64(p.VUs)
		}
	}
}

// addRates adds b's rates into a step by step.
func addRates(a, b []RatePoint) []RatePoint {
	for i, r := range b {
		if i < len(a) {
			a[i].Rate += r.Rate
			a[i].ElapsedSeconds = min(a[i].ElapsedSeconds, r.ElapsedSeconds)
			continue
		}
		a = append(a, r)
	}
	return a
}

// mergeGenerators merges what the workers' generators said: times and
// CPU add up, the largest delays are the largest, a workload was bound
// when any worker was (its reasons name the worker). clients weighs each
// worker's SenderBehindMs, an average over its clients.
func mergeGenerators(gs []*Generator, workers, clients []int, notes *inexact) *Generator {
	out := &Generator{}
	var behind float64
	var weights int
	var notesRate []string
	shares := 0
	for i, g := range gs {
		out.CPUSeconds += g.CPUSeconds
		if g.CPUShare > 0 {
			shares++
		}
		out.CPUShare = max(out.CPUShare, g.CPUShare)
		out.BehindScheduleMaxMs = max(out.BehindScheduleMaxMs, g.BehindScheduleMaxMs)
		out.BufferFullSeconds += g.BufferFullSeconds
		out.CommitSeconds += g.CommitSeconds
		out.Bound = out.Bound || g.Bound
		for _, r := range g.Reasons {
			out.Reasons = append(out.Reasons, fmt.Sprintf("worker %d: %s", workers[i], r))
		}
		behind += g.SenderBehindMs * float64(clients[i])
		weights += clients[i]
		switch g.RateLimitedBy {
		case "kbench":
			out.RateLimitedBy = "kbench"
		case "cluster":
			if out.RateLimitedBy == "" {
				out.RateLimitedBy = "cluster"
			}
		}
		if g.RateNote != "" {
			notesRate = append(notesRate, fmt.Sprintf("worker %d: %s", workers[i], g.RateNote))
		}
	}
	if weights > 0 {
		out.SenderBehindMs = behind / float64(weights)
	}
	out.RateNote = strings.Join(notesRate, "; ")
	if shares > 1 {
		notes.add("generator.cpu_share: the highest worker's, each worker's share of its own machine")
	}
	return out
}

func earliestPtr(a, b *time.Time) *time.Time {
	if b == nil || a != nil && !b.Before(*a) {
		return a
	}
	t := *b
	return &t
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
