package measure

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// SeriesHistogram holds one interval's latencies (µs) in the compact form a
// result's series keeps for every interval: log-linear buckets, 32 per
// power of two (a value reads back within 1.6%), beside the exact count,
// sum, minimum and maximum. An HdrHistogram at 2 significant digits has 128
// buckets per power of two and encodes to 0.75–0.95 KB for an interval of
// 20,000 records spread over 1–50 ms (3 digits: 2.8–3.4 KB); these buckets
// take about a fifth of that, so an hour of 1 s intervals stays under 1 MB,
// and they merge exactly as well (a value always falls in the same bucket).
// It is not safe for concurrent use.
type SeriesHistogram struct {
	// counts[k] is bucket base+k's: the buckets from the lowest to the
	// highest recorded, grown on demand either way. A series keeps one
	// histogram per interval and kind for the whole run, so the buckets
	// below an interval's fastest value (most of them: 1 ms is bucket
	// 190) are not held; a 10-minute soak's series grew by 20 KB an
	// interval when they were.
	counts               []int64
	base                 int
	count, sum, min, max int64
}

const (
	// seriesSubBits: 2^seriesSubBits buckets per power of two.
	seriesSubBits = 5
	seriesSub     = 1 << seriesSubBits
	// seriesMaxIndex is the bucket of MaxLatencyMicros, the last one.
	seriesFormat = 1 // the first byte of an encoding
)

var seriesMaxIndex = seriesIndex(MaxLatencyMicros)

// seriesIndex is the bucket of v (0 ≤ v ≤ MaxLatencyMicros): exact below
// 2·seriesSub, then seriesSub buckets per power of two.
func seriesIndex(v int64) int {
	if v < 2*seriesSub {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - seriesSubBits - 1
	return shift*seriesSub + int(v>>shift)
}

// seriesValue is the middle of bucket i, the value it reads back as.
func seriesValue(i int) int64 {
	if i < 2*seriesSub {
		return int64(i)
	}
	shift := i/seriesSub - 1
	m := int64(i - shift*seriesSub)
	lo := m << shift
	return lo + (int64(1)<<shift-1)/2
}

// NewSeriesHistogram returns an empty interval histogram.
func NewSeriesHistogram() *SeriesHistogram { return &SeriesHistogram{} }

// Record adds one latency in microseconds. A negative one is left out
// (Histogram counts those); one above MaxLatencyMicros counts in the
// buckets as MaxLatencyMicros and in sum and max as recorded.
func (h *SeriesHistogram) Record(us int64) {
	if us < 0 {
		return
	}
	if h.count == 0 || us < h.min {
		h.min = us
	}
	h.max = max(h.max, us)
	h.count++
	h.sum += us
	h.add(seriesIndex(min(us, MaxLatencyMicros)), 1)
}

func (h *SeriesHistogram) add(i int, n int64) {
	switch {
	case len(h.counts) == 0:
		h.base = i
		h.counts = append(h.counts, 0)
	case i < h.base:
		grown := make([]int64, len(h.counts)+h.base-i, cap(h.counts)+h.base-i)
		copy(grown[h.base-i:], h.counts)
		h.counts, h.base = grown, i
	case i-h.base >= len(h.counts):
		k := i - h.base
		h.counts = slices.Grow(h.counts, k+1-len(h.counts))[:k+1]
	}
	h.counts[i-h.base] += n
}

// Merge adds every value of o into h: the buckets add up, and so do the
// exact statistics.
func (h *SeriesHistogram) Merge(o *SeriesHistogram) {
	if o == nil || o.count == 0 {
		return
	}
	for k, n := range o.counts {
		if n != 0 {
			h.add(o.base+k, n)
		}
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.count += o.count
	h.sum += o.sum
}

// Count, Sum, Min and Max are exact (0 when empty).
func (h *SeriesHistogram) Count() int64 { return h.count }
func (h *SeriesHistogram) Sum() int64   { return h.sum }
func (h *SeriesHistogram) Min() int64   { return h.min }
func (h *SeriesHistogram) Max() int64   { return h.max }

// Quantile returns the value at quantile q (0 < q ≤ 1), in microseconds:
// the middle of the bucket holding the ⌈q·count⌉-th value, kept within the
// exact min and max.
func (h *SeriesHistogram) Quantile(q float64) int64 {
	var total int64
	for _, n := range h.counts {
		total += n
	}
	if total == 0 {
		return 0
	}
	rank := max(int64(q*float64(total)+0.999999999), 1)
	var seen int64
	for i, n := range h.counts {
		if seen += n; seen >= rank {
			return min(max(seriesValue(h.base+i), h.min), h.max)
		}
	}
	return h.max
}

// SetExact restores the exact statistics of a histogram read with
// DecodeSeries, whose encoding holds the buckets only.
func (h *SeriesHistogram) SetExact(count, sum, min, max int64) {
	h.count, h.sum, h.min, h.max = count, sum, min, max
}

// Compact lets go of the buckets' spare capacity (up to as much again as
// they hold, from growing): a series keeps every interval's histogram for
// the whole run, so one is compacted when its interval ends.
func (h *SeriesHistogram) Compact() {
	if cap(h.counts) > len(h.counts) {
		h.counts = slices.Clone(h.counts)
	}
}

// Reset empties h, keeping its buckets' memory.
func (h *SeriesHistogram) Reset() {
	clear(h.counts)
	h.counts, h.base = h.counts[:0], 0
	h.count, h.sum, h.min, h.max = 0, 0, 0, 0
}

// Encode returns h's buckets, base64 (unpadded): a format byte, then for
// each run of non-empty buckets the gap from the previous run's end and
// the run's length (unsigned varints), and its counts, each as the
// difference from the one before (signed varints: neighbouring buckets
// hold similar counts, so most take one byte where the counts themselves
// take two; deflate on top saved under 5%). "" when empty. The exact
// statistics are not in it: the result keeps them beside it as numbers.
func (h *SeriesHistogram) Encode() string {
	if h.count == 0 && len(h.counts) == 0 {
		return ""
	}
	b := []byte{seriesFormat}
	next := 0 // the index after the previous run
	for i := 0; i < len(h.counts); {
		if h.counts[i] == 0 {
			i++
			continue
		}
		j := i
		for j < len(h.counts) && h.counts[j] != 0 {
			j++
		}
		b = binary.AppendUvarint(b, uint64(h.base+i-next))
		b = binary.AppendUvarint(b, uint64(j-i))
		prev := int64(0)
		for _, n := range h.counts[i:j] {
			b = binary.AppendVarint(b, n-prev)
			prev = n
		}
		next, i = h.base+j, j
	}
	return base64.RawStdEncoding.EncodeToString(b)
}

// maxSeriesEncoding bounds an encoding's length: every bucket non-empty
// with counts of 10 bytes is under 10 KB.
const maxSeriesEncoding = 16 << 10

// DecodeSeries reads what Encode wrote. The exact statistics are taken
// from the buckets (count; min and max as bucket middles; sum from them)
// until SetExact restores them. A damaged encoding is an error.
func DecodeSeries(s string) (*SeriesHistogram, error) {
	h := &SeriesHistogram{}
	if _, err := h.addBuckets(s, true); err != nil {
		return nil, err
	}
	return h, nil
}

// AddEncoded adds an encoding's buckets into h, and the exact statistics
// recorded beside it (Merge, without a histogram decoded per part: merging
// a thousand workers' series made one per interval and worker). count
// must be what the buckets hold. After an error h is partly added to.
func (h *SeriesHistogram) AddEncoded(s string, count, sum, lo, hi int64) error {
	held, err := h.addBuckets(s, false)
	if err != nil {
		return err
	}
	if held != count {
		return fmt.Errorf("interval histogram holds %d values but its count is %d", held, count)
	}
	if count == 0 {
		return nil
	}
	if h.count == 0 || lo < h.min {
		h.min = lo
	}
	h.max = max(h.max, hi)
	h.count += count
	h.sum += sum
	return nil
}

// SeriesCount checks an encoding as DecodeSeries does and returns how many
// values it holds, without building the histogram: a result's every
// interval is checked when it is read, and decoding each made garbage of
// ten times the document.
func SeriesCount(s string) (int64, error) {
	var none *SeriesHistogram
	return none.addBuckets(s, false)
}

// addBuckets adds the buckets encoded in s to h and returns how many
// values they hold; approx also takes the statistics from the buckets
// (DecodeSeries, until SetExact). A nil h only counts them.
func (h *SeriesHistogram) addBuckets(s string, approx bool) (int64, error) {
	var held int64
	if s == "" {
		return 0, nil
	}
	if len(s) > maxSeriesEncoding {
		return held, fmt.Errorf("decode interval histogram: %d bytes, more than %d", len(s), maxSeriesEncoding)
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return held, fmt.Errorf("decode interval histogram: not base64: %w", err)
	}
	if len(b) == 0 || b[0] != seriesFormat {
		return held, fmt.Errorf("decode interval histogram: not format %d", seriesFormat)
	}
	b = b[1:]
	next := 0
	uvarint := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, errors.New("truncated")
		}
		b = b[n:]
		return v, nil
	}
	for len(b) > 0 {
		gap, err := uvarint()
		if err != nil {
			return held, fmt.Errorf("decode interval histogram: %w", err)
		}
		run, err := uvarint()
		if err != nil {
			return held, fmt.Errorf("decode interval histogram: %w", err)
		}
		if gap > uint64(seriesMaxIndex) || run == 0 || run > uint64(seriesMaxIndex) || next+int(gap)+int(run) > seriesMaxIndex+1 {
			return held, fmt.Errorf("decode interval histogram: buckets beyond %d µs", MaxLatencyMicros)
		}
		i := next + int(gap)
		var n int64
		for k := range int(run) {
			d, w := binary.Varint(b)
			if w <= 0 {
				return held, errors.New("decode interval histogram: truncated")
			}
			b = b[w:]
			if n += d; n <= 0 || n > 1<<53 {
				return held, fmt.Errorf("decode interval histogram: count %d in a run", n)
			}
			if held += n; held > 1<<62 {
				return held, errors.New("decode interval histogram: more than 2^62 values")
			}
			if h == nil {
				continue
			}
			h.add(i+k, n)
			if approx {
				v := seriesValue(i + k)
				if h.count == 0 {
					h.min = v
				}
				h.max = v
				h.count += n
				h.sum += n * v
			}
		}
		next = i + int(run)
	}
	return held, nil
}
