package measure

import (
	"fmt"
	"time"
)

// The measurements engines report while they run, in the types observers
// (the live view, the Prometheus endpoint) and the runner receive: a
// producing workload's intervals, a consuming workload's intervals, lag
// samples and stalls. They carry numbers only, no engine and no client.

// Interval is what completed during one reporting interval, over all clients.
type Interval struct {
	Elapsed time.Duration // end of the interval, since the run started
	Length  time.Duration
	WindowStats
	// P50Us, P99Us and P999Us are the interval's latency percentiles, in
	// microseconds, over every record that completed in it (2 significant
	// digits).
	P50Us, P99Us, P999Us int64
	// With OnSeries only: Buckets counts the interval's latencies into
	// LatencyBucketsUs (the last counts those above); Failed and Errors are
	// the failures so far, in all and by kind.
	Buckets []int64
	Failed  int64
	Errors  map[string]int64
	// FailedIn counts the records that failed in the interval (OMB's
	// publish errors per period).
	FailedIn int64
	// Sent is, on a schedule and for OnInterval only, the latencies of the
	// interval's records counted from their actual send rather than their
	// intended send time (the Apache tool's lines mean that): zero off a
	// schedule, where WindowStats' latencies are those already.
	Sent WindowStats
	// Delay is the interval's send delays (µs; sum, max and count), on a
	// schedule: OMB's publish delay; DelayHistogram holds them, encoded
	// (a Histogram; "" when none or not kept).
	Delay          WindowStats
	DelayHistogram string
	// LatencyHistogram holds the interval's latencies at the run
	// histogram's precision, encoded (Histogram): percentiles over
	// any span of intervals (OMB's periods) merge from it. OMB runs only.
	LatencyHistogram string
	// Series holds the interval's latencies in the compact form every
	// run keeps (exact count, sum, min and max beside the buckets); nil
	// when none completed.
	Series *SeriesHistogram
	// Steady is set once steady state (after warmup) has begun; the stats
	// then count steady-state records only, as the Apache tool does.
	Steady bool
	// Final marks the last, partial interval, taken when the run ends. The
	// Apache tool never prints it; kbench keeps it in the result.
	Final bool
	// Folded marks a partial interval too short for a rate of its own
	// (Folds): the series adds it to its neighbour, and a rate
	// shown from it must too.
	Folded bool
}

// LatencyBucketsUs returns the upper bounds of the latency buckets of
// Interval.Buckets, in microseconds: 0.5 ms to 10 s, Prometheus's usual
// spread. The slice is the caller's own.
func LatencyBucketsUs() []int64 {
	return []int64{500, 1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000}
}

// ConsumerInterval is what arrived during one reporting interval, over all
// clients.
type ConsumerInterval struct {
	Start, End   time.Time // the interval; an empty one is merged into the next
	Records      int64     // in the interval
	Bytes        int64     // key and value bytes in the interval
	TotalRecords int64     // since the run started
	TotalBytes   int64
	Rebalance    time.Duration // spent joining or waiting for an assignment in the interval
	LatSumUs     int64         // end-to-end latency, when ConsumerSpec.Latency
	LatMaxUs     int64
	LatencyCount int64
	// Histogram holds the interval's end-to-end latencies, encoded (a
	// Histogram); "" when none or not kept (OMB runs only).
	Histogram string
	// Series holds them in the compact form every run with latencies
	// keeps; nil when none.
	Series *SeriesHistogram
	// Final marks the last, partial interval, reported when the run ends
	// (the Apache tool never prints it).
	Final bool
	// Folded marks a partial interval (the first or the last) too short
	// for a rate of its own (Folds): the series adds it to its
	// neighbour, and a rate shown from it must too.
	Folded bool
}

// LagSample is the consumers' total lag at one moment: records in the
// partitions' logs that they had not yet consumed.
type LagSample struct {
	Elapsed time.Duration // since the run started
	Records int64
}

// Stall is a reporting interval in which no record completed although
// records were outstanding.
type Stall struct {
	For         time.Duration // since a record last completed or nothing waited (or the start)
	Outstanding int64         // records in the clients' buffers; for a reader, records unread
	LastError   string        // the last failed connection attempt, if any
	// Reader: a reader's stall, no record read while Outstanding wait;
	// Why says what holds them, when the reader knows (a share group's
	// members without partitions).
	Reader bool
	Why    string
}

// String says the stall as kbench prints it: "no acknowledgement for 6s:
// 40 records outstanding; last error: connection refused".
func (s Stall) String() string {
	why := ""
	if s.LastError != "" {
		why = "; last error: " + s.LastError
	}
	noun := "records"
	if s.Outstanding == 1 {
		noun = "record"
	}
	if s.Reader {
		if s.Why != "" {
			why = "; " + s.Why + why
		}
		return fmt.Sprintf("no record read for %s: %d %s unread%s", s.For.Round(100*time.Millisecond), s.Outstanding, noun, why)
	}
	return fmt.Sprintf("no acknowledgement for %s: %d %s outstanding%s", s.For.Round(100*time.Millisecond), s.Outstanding, noun, why)
}
