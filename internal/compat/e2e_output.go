package compat

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// E2ETopicCreated prints the line the Apache tool prints before creating a
// missing topic (it always asks for 1 partition and replication factor 1).
func E2ETopicCreated(w io.Writer, topic string, partitions, replicationFactor int) {
	fmt.Fprintf(w, "Topic \"%s\" does not exist. Will create topic with %d partition(s) and replication factor = %d\n",
		topic, partitions, replicationFactor)
}

// E2EProgressLine prints the line the Apache tool prints for every 1000th
// message: its index, a tab and its latency in milliseconds as Java's
// Double.toString writes elapsedNanos / 1000.0 / 1000.0.
func E2EProgressLine(w io.Writer, i int, elapsed time.Duration) {
	fmt.Fprintf(w, "%d\t%s\n", i, javaDouble(float64(elapsed.Nanoseconds())/1000.0/1000.0))
}

// E2ESummary prints the two result lines. totalNanos is the sum of every
// message's latency; p50, p99 and p999 are whole milliseconds.
func E2ESummary(w io.Writer, n int, totalNanos float64, p50, p99, p999 int64) {
	fmt.Fprintf(w, "Avg latency: %s ms\n", javaFixed(totalNanos/float64(n)/1000.0/1000.0, 4))
	fmt.Fprintf(w, "Percentiles: 50th = %d, 99th = %d, 99.9th = %d\n", p50, p99, p999)
}

// E2EPercentile returns the Apache tool's percentile of whole-millisecond
// latencies given as counts (counts[ms] messages took ms milliseconds,
// truncated): the element at index (int)(n*q) of the sorted latencies.
func E2EPercentile(counts []int64, q float64) int64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	if n == 0 {
		return 0
	}
	idx := int64(float64(n) * q) // Java's (int) cast truncates
	var seen int64
	for ms, c := range counts {
		seen += c
		if seen > idx {
			return int64(ms)
		}
	}
	return int64(len(counts) - 1)
}

// javaDouble formats v as Java's Double.toString: the shortest digits that
// identify the double, in plain notation with at least one decimal between
// 10^-3 and 10^7 and in computerized scientific notation ("1.0E7") outside.
func javaDouble(v float64) string {
	if s, ok := javaSpecial(v); ok {
		return s
	}
	if v == 0 {
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	digits, point := shortestDigits(v)
	if v >= 1e-3 && v < 1e7 {
		intPart, frac := splitDigits(digits, point)
		if frac == "" {
			frac = "0" // Double.toString always shows a fraction: 3.0
		}
		return sign + intPart + "." + frac
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(point-1)
}
