package summary

import (
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload/produce"
)

// Producer converts what producers measured into the result
// document's form: engines return measurements, documents are built here.
// cpu is the process CPU time spent during the run (0 if unknown).
func Producer(r *produce.ProducerResult, targetRate float64, cpu time.Duration) (*result.Producer, error) {
	out, err := producerCounts(r.Sending(r.Start), r.Acked, r.Bytes, r.Latency)
	if err != nil {
		return nil, err
	}
	out.Clients, out.VUs = r.Clients, r.VUs
	out.Failed = r.Failed
	out.Unresolved = r.Unresolved
	out.UnresolvedMaxWaitMs = float64(r.UnresolvedWait.Microseconds()) / 1000
	out.NotSent = r.NotSent
	for _, p := range r.Pauses {
		out.KbenchPauses = append(out.KbenchPauses, result.Pause{AtSeconds: p.At.Sub(r.Start).Seconds(), Seconds: p.Length.Seconds()})
	}
	out.TargetRate = max(targetRate, 0)
	for _, r := range r.Rates {
		out.BalancedRates = append(out.BalancedRates, result.RatePoint{ElapsedSeconds: r.Elapsed.Seconds(), Rate: r.Rate})
	}
	out.LatencyFrom = "send"
	if r.LatencyFromIntended {
		out.LatencyFrom = "intended"
	}
	if len(r.Errors) > 0 {
		out.Errors = r.Errors
	}
	out.CPUSeconds = cpu.Seconds()
	if out.PublishDelay, err = delayOf(r.SendDelay); err != nil {
		return nil, err
	}
	if out.SendLatency, err = delayOf(r.SentLatency); err != nil {
		return nil, err
	}
	if !r.FirstSend.IsZero() {
		t := r.FirstSend.UTC()
		out.FirstSendAt = &t
	}
	if !r.FirstAck.IsZero() {
		t := r.FirstAck.UTC()
		out.FirstAckAt = &t
	}
	if t := r.Transactions; t != nil {
		lat, err := result.LatencyOf(t.Commit)
		if err != nil {
			return nil, err
		}
		out.Transactions = &result.Transactions{Committed: t.Committed, Aborted: t.Aborted, Failed: t.Failed,
			CommittedRecords: t.CommittedRecords, AbortedRecords: t.AbortedRecords, CommitLatency: lat}
	}
	for _, iv := range r.Intervals {
		secs := iv.Length.Seconds()
		ri := result.Interval{
			Start:                 r.Start.Add(iv.Elapsed - iv.Length),
			Seconds:               secs,
			Steady:                iv.Steady,
			Final:                 iv.Final,
			ElapsedSeconds:        iv.Elapsed.Seconds(),
			Records:               iv.Count,
			Bytes:                 iv.Bytes,
			Failed:                iv.FailedIn,
			PublishDelayAvgUs:     iv.Delay.AvgLatencyMicros(),
			PublishDelayMaxUs:     iv.Delay.LatMaxUs,
			PublishDelayHistogram: iv.DelayHistogram,
			PublishHistogram:      iv.LatencyHistogram,
			AvgLatencyMs:          iv.AvgLatencyMicros() / 1000,
			MaxLatencyMs:          float64(iv.LatMaxUs) / 1000,
			// The interval histogram keeps its percentiles within its
			// exact bounds; its records and the window's (LatMaxUs) are
			// taken one after the other by the reporter, so a batch
			// published between lands in this interval's histogram and
			// the next one's window: the window's max bounds them too.
			P50LatencyMs:  float64(measure.Clamp(iv.P50Us, 0, iv.LatMaxUs)) / 1000,
			P99LatencyMs:  float64(measure.Clamp(iv.P99Us, 0, iv.LatMaxUs)) / 1000,
			P999LatencyMs: float64(measure.Clamp(iv.P999Us, 0, iv.LatMaxUs)) / 1000,
		}
		if secs > 0 {
			ri.RecordsPerSec = float64(iv.Count) / secs
		}
		ri.SetHistogram(iv.Series)
		out.Intervals = append(out.Intervals, ri)
	}
	for _, pl := range r.Plateaus {
		p, err := plateauOf(pl)
		if err != nil {
			return nil, err
		}
		out.Plateaus = append(out.Plateaus, p)
	}
	// No steady record acknowledged (interrupted during warm-up, or a
	// duration shorter than it): no steady state to report.
	if r.Steady != nil && !r.Steady.Start.IsZero() {
		st, err := producerCounts(r.SteadySending(), r.Steady.Acked, r.Steady.Bytes, r.Steady.Latency)
		if err != nil {
			return nil, err
		}
		st.Clients, st.VUs = r.Clients, r.VUs
		st.LatencyFrom = out.LatencyFrom
		if st.PublishDelay, err = delayOf(r.Steady.SendDelay); err != nil {
			return nil, err
		}
		if st.SendLatency, err = delayOf(r.Steady.SentLatency); err != nil {
			return nil, err
		}
		at := r.Steady.Start.UTC()
		st.StartedAt = &at
		st.WarmupAckLagMs = float64(r.Steady.AckLag.Microseconds()) / 1000
		out.SteadyState = st
	}
	return out, nil
}

// plateauOf is a plateau's figures, with Little's law's check.
func plateauOf(pl produce.PlateauResult) (result.Plateau, error) {
	lat, err := result.LatencyOf(pl.Latency)
	if err != nil {
		return result.Plateau{}, err
	}
	p := result.Plateau{VUs: pl.Users, FromSeconds: pl.From.Seconds(), ToSeconds: pl.To.Seconds(), Records: pl.Acked, Latency: lat}
	if secs := (pl.To - pl.From).Seconds(); secs > 0 {
		p.RecordsPerSec = float64(pl.Acked) / secs
	}
	if pl.Acked > 0 {
		p.P50Ms = float64(pl.Latency.Quantile(0.50)) / 1000
		p.P99Ms = float64(pl.Latency.Quantile(0.99)) / 1000
		p.MeanMs = pl.Latency.Mean() / 1000
		p.LittleUsers = p.RecordsPerSec * p.MeanMs / 1000
		p.LittleRatio = p.LittleUsers / float64(pl.Users)
	}
	return p, nil
}

func producerCounts(elapsed time.Duration, acked, bytes int64, h *measure.Histogram) (*result.Producer, error) {
	lat, err := result.LatencyOf(h)
	if err != nil {
		return nil, err
	}
	out := &result.Producer{
		Latency:         lat,
		Records:         acked,
		Bytes:           bytes,
		DurationSeconds: elapsed.Seconds(),
	}
	if secs := elapsed.Seconds(); secs > 0 {
		out.RecordsPerSec = float64(acked) / secs
		out.MiBPerSec = float64(bytes) / secs / (1024 * 1024)
	}
	return out, nil
}

// delayOf summarises a send-delay histogram; nil when none was kept.
func delayOf(h *measure.Histogram) (*result.Latency, error) {
	if h == nil {
		return nil, nil
	}
	l, err := result.LatencyOf(h)
	if err != nil {
		return nil, err
	}
	return &l, nil
}
