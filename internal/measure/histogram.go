// Package measure records what a benchmark measures: latencies into
// HdrHistogram (Histogram), and per-interval counters that one goroutine
// writes and another reads without locks (Window). Learn Histogram first.
//
// Nothing here keeps per-record samples: memory is fixed however long a run
// lasts, and histograms from many clients, repeats or machines merge exactly.
package measure

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"

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

// Histogram holds latencies in microseconds: an HdrHistogram from 0 to
// MaxLatencyMicros at 3 significant digits for the percentiles, and beside
// it the exact count, sum, minimum and maximum, so that the mean and max it
// reports are what was recorded, not a bucket's bounds. It is not safe for
// concurrent use: give each writer goroutine its own and Merge them.
type Histogram struct {
	h *hdrhistogram.Histogram
	// Exact statistics of the recorded values (negative ones excluded).
	count, sum, min, max int64
	// overRange counts values above MaxLatencyMicros: in the percentiles
	// as MaxLatencyMicros, in sum and max as recorded. negative counts
	// values below 0 (clocks of two machines disagreeing): left out of
	// everything else, since no latency can be negative.
	overRange, negative int64
}

// NewHistogram returns an empty latency histogram. The zero Histogram is
// empty too (a section's histogram field needs no constructor).
func NewHistogram() *Histogram {
	return &Histogram{h: newHDR()}
}

func newHDR() *hdrhistogram.Histogram { return hdrhistogram.New(1, MaxLatencyMicros, sigFigs) }

// hdr is h's HdrHistogram, made on first use for a zero Histogram.
func (h *Histogram) hdr() *hdrhistogram.Histogram {
	if h.h == nil {
		h.h = newHDR()
	}
	return h.h
}

// Record adds one latency in microseconds.
func (h *Histogram) Record(us int64) {
	if us < 0 {
		h.negative++
		return
	}
	if h.count == 0 || us < h.min {
		h.min = us
	}
	if us > h.max {
		h.max = us
	}
	h.count++
	h.sum += us
	if us > MaxLatencyMicros {
		h.overRange++
		us = MaxLatencyMicros
	}
	// RecordValue only fails for values out of range, excluded above.
	_ = h.hdr().RecordValue(us)
}

// Merge adds every value of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil {
		return
	}
	// Both cover the same range, so nothing is dropped; count it if it is.
	if o.h != nil {
		h.overRange += h.hdr().Merge(o.h)
	}
	if o.count > 0 {
		if h.count == 0 || o.min < h.min {
			h.min = o.min
		}
		h.max = max(h.max, o.max)
	}
	h.count += o.count
	h.sum += o.sum
	h.overRange += o.overRange
	h.negative += o.negative
}

// Count is the number of recorded values (negative ones excluded).
func (h *Histogram) Count() int64 { return h.count }

// Sum is the exact sum of the recorded values in microseconds.
func (h *Histogram) Sum() int64 { return h.sum }

// Max is the largest recorded value in microseconds, exactly (0 when empty).
func (h *Histogram) Max() int64 { return h.max }

// Min is the smallest recorded value in microseconds, exactly (0 when empty).
func (h *Histogram) Min() int64 { return h.min }

// Mean is the exact average recorded value in microseconds (0 when empty).
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.count)
}

// OverRange counts values above MaxLatencyMicros.
func (h *Histogram) OverRange() int64 { return h.overRange }

// Negative counts negative values, which were not recorded.
func (h *Histogram) Negative() int64 { return h.negative }

// Quantile returns the value at quantile q (0 < q <= 1), in microseconds,
// from the HdrHistogram (within 0.1%), kept within the exact min and max.
func (h *Histogram) Quantile(q float64) int64 {
	if h.count == 0 {
		return 0
	}
	return Clamp(h.hdr().ValueAtQuantile(q*100), h.min, h.max)
}

// Clamp keeps a percentile read off a histogram within the exact min and
// max of the values recorded: a histogram bucket's value lies up to its
// precision past them. Every percentile kbench reports goes through it.
func Clamp(v, lo, hi int64) int64 { return min(max(v, lo), hi) }

// SetExact restores the exact statistics of a histogram rebuilt with
// Decode, which holds only the HdrHistogram part.
func (h *Histogram) SetExact(count, sum, min, max, overRange, negative int64) {
	h.count, h.sum, h.min, h.max, h.overRange, h.negative = count, sum, min, max, overRange, negative
}

// Reset empties h.
func (h *Histogram) Reset() {
	h.hdr().Reset()
	h.count, h.sum, h.min, h.max, h.overRange, h.negative = 0, 0, 0, 0, 0, 0
}

// Encode returns h in HdrHistogram's compressed V2 format, base64 encoded:
// the form stored in result documents and readable by every HdrHistogram
// implementation (Java, Go, C, Python, Rust).
func (h *Histogram) Encode() (string, error) {
	b, err := h.hdr().Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// Decode reads a histogram written by Encode. The encoding holds only the
// HdrHistogram part: the exact statistics are approximated from it until
// SetExact restores them (result.Latency.Histogram does). Anything else,
// damaged or written with another range or precision, is an error: the
// header is checked before the library decodes it, since the library
// trusts it (it panics on short input and allocates what the header asks).
func Decode(s string) (*Histogram, error) {
	if err := checkEncoding(s); err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	h, err := decodeSafely(s)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	out := &Histogram{h: h, count: h.TotalCount()}
	if out.count > 0 {
		out.min, out.max = h.Min(), h.Max()
		out.sum = int64(h.Mean() * float64(out.count))
	}
	return out, nil
}

// maxDecoded bounds a histogram's decompressed size: one of kbench's range
// and precision takes at most about 0.4 MB (9 bytes per bucket).
const maxDecoded = 1 << 20

// checkEncoding checks what hdrhistogram.Decode would trust: the base64,
// the V2 compressed cookie and length, the decompressed size, and a header
// with this package's range and precision.
func checkEncoding(s string) error {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("not base64: %w", err)
	}
	if len(b) < 8 {
		return fmt.Errorf("%d bytes, too short for a histogram", len(b))
	}
	if c := int32(binary.BigEndian.Uint32(b)) &^ 0xf0; c != hdrhistogram.V2CompressedEncodingCookieBase {
		return fmt.Errorf("not an HdrHistogram V2 compressed encoding")
	}
	n := int32(binary.BigEndian.Uint32(b[4:]))
	if n < 0 || int(n) > len(b)-8 {
		return fmt.Errorf("compressed length %d, but %d bytes follow", n, len(b)-8)
	}
	z, err := zlib.NewReader(bytes.NewReader(b[8 : 8+n]))
	if err != nil {
		return fmt.Errorf("compressed contents: %w", err)
	}
	defer z.Close()
	raw, err := io.ReadAll(io.LimitReader(z, maxDecoded+1))
	if err != nil {
		return fmt.Errorf("compressed contents: %w", err)
	}
	switch {
	case len(raw) > maxDecoded:
		return fmt.Errorf("more than %d bytes decompressed", maxDecoded)
	case len(raw) < 40:
		return fmt.Errorf("%d bytes decompressed, too short for the header", len(raw))
	}
	sig, lo, hi := int32(binary.BigEndian.Uint32(raw[12:])), int64(binary.BigEndian.Uint64(raw[16:])), int64(binary.BigEndian.Uint64(raw[24:]))
	if sig != sigFigs || lo != 1 || hi != MaxLatencyMicros {
		return fmt.Errorf("range %d..%d at %d significant digits, not kbench's 1..%d at %d", lo, hi, sig, MaxLatencyMicros, sigFigs)
	}
	return nil
}

// decodeSafely turns what the library still panics on (counts beyond the
// histogram's buckets) into an error.
func decodeSafely(s string) (h *hdrhistogram.Histogram, err error) {
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("damaged counts (%v)", r)
		}
	}()
	return hdrhistogram.Decode([]byte(s))
}
