package measure

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// HistogramSum adds encoded histograms (Encode's form) bucket by bucket,
// each straight from its encoding into one array of counts: merging a
// thousand workers' latencies decoded a thousand histograms of a few
// hundred KB each, and decompressed each twice (8.6 s and 2 GB for 1,000
// result slices). The exact statistics are added beside the counts, so
// Histogram is exactly the merge of the decoded histograms. The zero
// value is empty and ready.
type HistogramSum struct {
	counts                                    []int64
	count, sum, min, max, overRange, negative int64
	// Reused from one Add to the next.
	packed, raw []byte
	z           io.ReadCloser
}

// countsLen is how many buckets a histogram of kbench's range and
// precision has: the positions an encoding's counts are at.
var countsLen = sync.OnceValue(func() int {
	return len(hdrhistogram.New(1, MaxLatencyMicros, sigFigs).Export().Counts)
})

// Add adds one histogram: its encoding, and the exact statistics it was
// recorded with (result.Latency's fields). The encoding must be of
// kbench's range and precision, as Decode requires.
func (s *HistogramSum) Add(encoded string, count, sum, lo, hi, overRange, negative int64) error {
	if encoded == "" {
		if count != 0 {
			return fmt.Errorf("add histogram: empty, but its count is %d", count)
		}
		s.negative += negative
		return nil
	}
	raw, err := s.unpack(encoded)
	if err != nil {
		return fmt.Errorf("add histogram: %w", err)
	}
	if s.counts == nil {
		s.counts = make([]int64, countsLen())
	}
	var held int64
	at := 0
	for b := raw[40:]; len(b) > 0; {
		u, n := binary.Uvarint(b)
		if n <= 0 || n > 8 {
			return errors.New("add histogram: damaged counts")
		}
		b = b[n:]
		v := int64(u>>1) ^ -int64(u&1) // zig-zag
		if v < 0 {
			at += int(-v) // a run of empty buckets
			continue
		}
		if at >= len(s.counts) {
			return errors.New("add histogram: counts beyond its buckets")
		}
		s.counts[at] += v
		held += v
		at++
	}
	if held != count {
		return fmt.Errorf("add histogram: it holds %d values but its count is %d", held, count)
	}
	if count > 0 {
		if s.count == 0 || lo < s.min {
			s.min = lo
		}
		s.max = max(s.max, hi)
	}
	s.count += count
	s.sum += sum
	s.overRange += overRange
	s.negative += negative
	return nil
}

// unpack checks an encoding as Decode does and returns its decompressed
// header and counts, in a buffer reused by the next call.
func (s *HistogramSum) unpack(encoded string) ([]byte, error) {
	need := base64.StdEncoding.DecodedLen(len(encoded))
	if cap(s.packed) < need {
		s.packed = make([]byte, need)
	}
	n, err := base64.StdEncoding.Decode(s.packed[:need], []byte(encoded))
	if err != nil {
		return nil, fmt.Errorf("not base64: %w", err)
	}
	b := s.packed[:n]
	if len(b) < 8 {
		return nil, fmt.Errorf("%d bytes, too short for a histogram", len(b))
	}
	if c := int32(binary.BigEndian.Uint32(b)) &^ 0xf0; c != hdrhistogram.V2CompressedEncodingCookieBase {
		return nil, errors.New("not an HdrHistogram V2 compressed encoding")
	}
	size := int32(binary.BigEndian.Uint32(b[4:]))
	if size < 0 || int(size) > len(b)-8 {
		return nil, fmt.Errorf("compressed length %d, but %d bytes follow", size, len(b)-8)
	}
	if s.z == nil {
		s.z, err = zlib.NewReader(bytes.NewReader(b[8 : 8+size]))
	} else {
		err = s.z.(zlib.Resetter).Reset(bytes.NewReader(b[8:8+size]), nil)
	}
	if err != nil {
		return nil, fmt.Errorf("compressed contents: %w", err)
	}
	buf := bytes.NewBuffer(s.raw[:0])
	if _, err := buf.ReadFrom(io.LimitReader(s.z, maxDecoded+1)); err != nil {
		return nil, fmt.Errorf("compressed contents: %w", err)
	}
	raw := buf.Bytes()
	s.raw = raw
	switch {
	case len(raw) > maxDecoded:
		return nil, fmt.Errorf("more than %d bytes decompressed", maxDecoded)
	case len(raw) < 40:
		return nil, fmt.Errorf("%d bytes decompressed, too short for the header", len(raw))
	}
	sig, lo, hi := int32(binary.BigEndian.Uint32(raw[12:])), int64(binary.BigEndian.Uint64(raw[16:])), int64(binary.BigEndian.Uint64(raw[24:]))
	if sig != sigFigs || lo != 1 || hi != MaxLatencyMicros {
		return nil, fmt.Errorf("range %d..%d at %d significant digits, not kbench's 1..%d at %d", lo, hi, sig, MaxLatencyMicros, sigFigs)
	}
	if payload := int32(binary.BigEndian.Uint32(raw[4:])); int(payload) != len(raw)-40 {
		return nil, fmt.Errorf("payload length %d, but %d bytes follow the header", payload, len(raw)-40)
	}
	return raw, nil
}

// Histogram is the sum: every value added, with the exact statistics.
func (s *HistogramSum) Histogram() *Histogram {
	if s.counts == nil {
		h := NewHistogram()
		h.negative = s.negative
		return h
	}
	hh := hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: 1, HighestTrackableValue: MaxLatencyMicros,
		SignificantFigures: sigFigs, Counts: append([]int64(nil), s.counts...)})
	return &Histogram{h: hh, count: s.count, sum: s.sum, min: s.min, max: s.max, overRange: s.overRange, negative: s.negative}
}
