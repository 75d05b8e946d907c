package compat

import (
	"fmt"
	"io"
)

// The consumer tool's lines. Every number is computed with the Apache tool's
// arithmetic (whole milliseconds from System.currentTimeMillis, doubles in
// the same order) and formatted with Java's HALF_UP rounding, so that the
// same inputs give byte-identical output.

// ConsumerHeader prints the header line of the summary (detailed false) or
// of the detailed stats.
func ConsumerHeader(w io.Writer, detailed bool) {
	const fetchFields = ", rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
	if detailed {
		fmt.Fprintln(w, "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec"+fetchFields)
		return
	}
	fmt.Fprintln(w, "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec"+fetchFields)
}

// ConsumerTotals are a whole run's numbers. Times are Unix milliseconds.
type ConsumerTotals struct {
	StartMs, EndMs int64
	Bytes          int64 // keys and values, as the Apache tool counts
	Records        int64
	RebalanceMs    int64 // time spent joining the group and waiting for an assignment
}

// ConsumerSummary prints the CSV values line of a run.
func ConsumerSummary(w io.Writer, df *DateFormat, t ConsumerTotals) {
	elapsedSec := float64(t.EndMs-t.StartMs) / 1000.0
	fetchMs := (t.EndMs - t.StartMs) - t.RebalanceMs
	mb := float64(t.Bytes) * 1.0 / (1024 * 1024)
	fmt.Fprintf(w, "%s, %s, %s, %s, %d, %s, %d, %d, %s, %s\n",
		df.FormatMillis(t.StartMs),
		df.FormatMillis(t.EndMs),
		javaFixed(mb, 4),
		javaFixed(mb/elapsedSec, 4),
		t.Records,
		javaFixed(float64(t.Records)/elapsedSec, 4),
		t.RebalanceMs,
		fetchMs,
		javaFixed(mb/(float64(fetchMs)/1000.0), 4),
		javaFixed(float64(t.Records)/(float64(fetchMs)/1000.0), 4))
}

// ConsumerProgress is one reporting interval of the detailed stats: the
// totals so far and those at the previous line.
type ConsumerProgress struct {
	ThreadID              int
	StartMs, EndMs        int64 // the interval, Unix milliseconds
	Bytes, LastBytes      int64
	Records, LastRecords  int64
	RebalanceMsInInterval int64
}

// ConsumerProgressLine prints one --show-detailed-stats line.
func ConsumerProgressLine(w io.Writer, df *DateFormat, p ConsumerProgress) {
	elapsedMs := float64(p.EndMs - p.StartMs)
	totalMb := float64(p.Bytes) * 1.0 / (1024 * 1024)
	intervalMb := float64(p.Bytes-p.LastBytes) * 1.0 / (1024 * 1024)
	intervalMbPerSec := 1000.0 * intervalMb / elapsedMs
	intervalRecPerSec := (float64(p.Records-p.LastRecords) / elapsedMs) * 1000.0

	fetchMs := p.EndMs - p.StartMs - p.RebalanceMsInInterval
	fetchMbPerSec, fetchRecPerSec := 0.0, 0.0
	if fetchMs > 0 {
		fetchMbPerSec = 1000.0 * intervalMb / float64(fetchMs)
		fetchRecPerSec = 1000.0 * float64(p.Records-p.LastRecords) / float64(fetchMs)
	}
	fmt.Fprintf(w, "%s, %d, %s, %s, %d, %s, %d, %d, %s, %s\n",
		df.FormatMillis(p.EndMs), p.ThreadID,
		javaFixed(totalMb, 4), javaFixed(intervalMbPerSec, 4),
		p.Records, javaFixed(intervalRecPerSec, 4),
		p.RebalanceMsInInterval, fetchMs,
		javaFixed(fetchMbPerSec, 4), javaFixed(fetchRecPerSec, 4))
}

// ConsumerTimeoutWarning prints the Apache tool's (4.2+) line for a run that
// ended because no record arrived within the timeout.
func ConsumerTimeoutWarning(w io.Writer, timeoutMs int64) {
	fmt.Fprintf(w, "WARNING: Exiting before consuming the expected number of records: timeout (%d ms) exceeded. "+
		"You can use the --timeout option to increase the timeout.\n", timeoutMs)
}
