package summary

import (
	"time"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/share"
)

// Consumer converts what consumers measured into the result
// document's form: the consumer statistics, and the end-to-end latency when
// it was measured (nil otherwise). cpu is the process CPU time spent during
// the run (0 if unknown).
func Consumer(r *consume.ConsumerResult, cpu time.Duration) (*result.Consumer, *result.Latency, error) {
	elapsed := r.End.Sub(r.Start)
	reading := r.Reading()
	out := &result.Consumer{
		Clients:               r.Clients,
		Records:               r.Records,
		Bytes:                 r.Bytes,
		DurationSeconds:       elapsed.Seconds(),
		ReadingSeconds:        reading.Seconds(),
		RecordsPerSec:         measure.PerSecond(r.Records, reading),
		MiBPerSec:             measure.PerSecond(r.Bytes, reading) / (1024 * 1024),
		LifetimeRecordsPerSec: measure.PerSecond(r.Records, elapsed),
		RebalanceMs:           r.Rebalance.Milliseconds(),
		FetchMs:               (elapsed - r.Rebalance).Milliseconds(),
		Rebalances:            r.Rebalances,
		CPUSeconds:            cpu.Seconds(),
		Decoded:               r.Decoded,
		DecodeFailures:        r.DecodeFailures,
	}
	if r.DecodeError != nil {
		out.DecodeError = r.DecodeError.Error()
	}
	if len(r.Errors) > 0 {
		out.Errors = r.Errors
	}
	for _, g := range r.GroupChanges {
		out.GroupChanges = append(out.GroupChanges, result.GroupChange{At: g.At, Client: g.Client, Event: g.Event, Partitions: g.Partitions})
	}
	for _, iv := range r.Intervals {
		ri := result.Interval{
			Start:             iv.Start,
			Seconds:           iv.End.Sub(iv.Start).Seconds(),
			Final:             iv.Final,
			ElapsedSeconds:    iv.End.Sub(r.Start).Seconds(),
			Records:           iv.Records,
			Bytes:             iv.Bytes,
			EndToEndHistogram: iv.Histogram,
		}
		if secs := iv.End.Sub(iv.Start).Seconds(); secs > 0 {
			ri.RecordsPerSec = float64(iv.Records) / secs
		}
		if iv.LatencyCount > 0 {
			ri.AvgLatencyMs = float64(iv.LatSumUs) / float64(iv.LatencyCount) / 1000
			ri.MaxLatencyMs = float64(iv.LatMaxUs) / 1000
		}
		ri.SetHistogram(iv.Series)
		out.Intervals = append(out.Intervals, ri)
	}
	for _, l := range r.Lag {
		out.Lag = append(out.Lag, result.LagPoint{ElapsedSeconds: l.Elapsed.Seconds(), Records: l.Records})
	}
	if r.Latency == nil {
		return out, nil, nil
	}
	lat, err := result.LatencyOf(r.Latency)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case r.FromHeader > 0 && r.FromTimestamp > 0:
		lat.Source = "mixed"
	case r.FromHeader > 0:
		lat.Source = "header"
	case r.FromTimestamp > 0:
		lat.Source = "timestamp"
	}
	lat.Backlog = r.Backlog
	return out, &lat, nil
}

// Share converts what a share group's members did with their
// deliveries into the result document's share section (the consumer
// section's Share).
func Share(sh *share.Result) (*result.Share, error) {
	out := &result.Share{
		Deliveries: sh.Deliveries, Accepted: sh.Accepted, Released: sh.Released, Rejected: sh.Rejected,
		Renewed: sh.Renewed, Archived: sh.Archived, Redelivered: sh.Redelivered, LockTimeouts: sh.LockTimeouts,
		DeliveryCounts: sh.DeliveryCounts, PerMember: sh.PerMember, Resettled: sh.Resettled,
	}
	if len(sh.AckErrors) > 0 {
		out.AckErrors = sh.AckErrors
	}
	if sh.AckLatency != nil && sh.AckLatency.Count() > 0 {
		lat, err := result.LatencyOf(sh.AckLatency)
		if err != nil {
			return nil, err
		}
		out.AckLatency = &lat
	}
	if v := sh.Verdict; v != nil {
		out.Verification = &result.ShareVerification{Records: v.Records, Accepted: v.Accepted, AcceptedTwice: v.AcceptedTwice,
			Rejected: v.Rejected, Archived: v.Archived, SettledByBroker: v.SettledByBroker, Unsettled: v.Unsettled, Partial: v.Partial}
		if v.BrokerLag >= 0 {
			out.Verification.BrokerLag = &v.BrokerLag
		}
		for _, m := range v.Missing {
			out.Verification.Missing = append(out.Verification.Missing, m.String())
		}
	}
	return out, nil
}
