// Package measure records what a benchmark measures: latencies into
// HdrHistogram (Histogram), and per-interval counters that one goroutine
// writes and another reads without locks (Window). Learn Histogram first.
//
// Nothing here keeps per-record samples: memory is fixed however long a run
// lasts, and histograms from many clients, repeats or machines merge exactly.
package measure

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// MaxLatencyMicros is the largest latency a Histogram tracks exactly: one
	// hour. Larger values are clamped to it, so a record that waited longer
	// still counts (as one hour) instead of being dropped.
	MaxLatencyMicros = int64(3600 * 1000 * 1000)
	// sigFigs keeps every value within 0.1% of what was recorded.
	sigFigs = 3
)

// Histogram holds latencies in microseconds, from 0 to MaxLatencyMicros, at
// 3 significant digits. It is not safe for concurrent use: give each writer
// goroutine its own and Merge them when done.
type Histogram struct {
	h *hdrhistogram.Histogram
}

// NewHistogram returns an empty latency histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(1, MaxLatencyMicros, sigFigs)}
}

// Record adds one latency in microseconds. Negative values (clock steps) are
// recorded as 0 and values above MaxLatencyMicros as MaxLatencyMicros.
func (h *Histogram) Record(us int64) {
	if us < 0 {
		us = 0
	} else if us > MaxLatencyMicros {
		us = MaxLatencyMicros
	}
	// RecordValue only fails for values out of range, excluded above.
	_ = h.h.RecordValue(us)
}

// Merge adds every value of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil {
		return
	}
	h.h.Merge(o.h)
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Max is the largest recorded value in microseconds (0 when empty).
func (h *Histogram) Max() int64 {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return h.h.Max()
}

// Min is the smallest recorded value in microseconds (0 when empty).
func (h *Histogram) Min() int64 {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return h.h.Min()
}

// Mean is the average recorded value in microseconds.
func (h *Histogram) Mean() float64 { return h.h.Mean() }

// Quantile returns the value at quantile q (0 < q <= 1), in microseconds.
func (h *Histogram) Quantile(q float64) int64 { return h.h.ValueAtQuantile(q * 100) }

// Reset empties h.
func (h *Histogram) Reset() { h.h.Reset() }

// Encode returns h in HdrHistogram's compressed V2 format, base64 encoded:
// the form stored in result documents and readable by every HdrHistogram
// implementation (Java, Go, C, Python, Rust).
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// Decode reads a histogram written by Encode.
func Decode(s string) (*Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return &Histogram{h: h}, nil
}
