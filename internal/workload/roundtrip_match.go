package workload

import (
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/measure"
)

// RoundTripHeader is the header that carries a round-trip record's id
// with match: header; with match: key the id is the record's key.
const RoundTripHeader = "kbench-rt-id"

// A round-trip id is ASCII, so a service that reads keys as strings
// keeps it byte for byte: "<run nonce, 16 hex>-<client>-<seq>-<intended
// send time, Unix ns>". The send time in the id is what the latency
// counts from, so nothing is kept per record while it is away.

// appendRoundTripID appends the id of client's record seq, due at sentNs.
func appendRoundTripID(b []byte, nonce uint64, client int, seq, sentNs int64) []byte {
	const hex = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hex[(nonce>>uint(shift))&0xf])
	}
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(client), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, '-')
	return strconv.AppendInt(b, sentNs, 10)
}

// parseRoundTripID reads an id; false when b is not one.
func parseRoundTripID(b []byte) (nonce uint64, client int, seq, sentNs int64, ok bool) {
	if len(b) < 16+6 || b[16] != '-' {
		return 0, 0, 0, 0, false
	}
	for _, c := range b[:16] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		default:
			return 0, 0, 0, 0, false
		}
		nonce = nonce<<4 | uint64(d)
	}
	rest := b[17:]
	var nums [3]int64
	for i := range nums {
		n, used := 0, int64(0)
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			if used > (1<<63-1)/10 {
				return 0, 0, 0, 0, false
			}
			used = used*10 + int64(rest[n]-'0')
			n++
		}
		if n == 0 || (i < 2 && (n == len(rest) || rest[n] != '-')) || (i == 2 && n != len(rest)) {
			return 0, 0, 0, 0, false
		}
		nums[i] = used
		if i < 2 {
			rest = rest[n+1:]
		}
	}
	if nums[0] > 1<<30 {
		return 0, 0, 0, 0, false
	}
	return nonce, int(nums[0]), nums[1], nums[2], true
}

// bitset is a growable set of record numbers.
type bitset []uint64

func (b *bitset) set(i int64) (was bool) {
	w := int(i >> 6)
	if w >= len(*b) {
		*b = append(*b, make([]uint64, w-len(*b)+1+len(*b)/4)...)
	}
	m := uint64(1) << (i & 63)
	was = (*b)[w]&m != 0
	(*b)[w] |= m
	return was
}

// andCount is how many numbers are in both sets.
func (b bitset) andCount(o bitset) int64 {
	var n int
	for i := range min(len(b), len(o)) {
		n += bits.OnesCount64(b[i] & o[i])
	}
	return int64(n)
}

// rtStamper is one producer client's RecordTracker in a round trip: it
// gives each record its id (a header, or the key) and notes which
// records were acknowledged. Stamp allocates the id (virtual users call
// it concurrently, so it carves nothing from a shared chunk); acked is
// written by the client's promise worker only and read once the
// producer has ended.
type rtStamper struct {
	nonce  uint64
	client int
	key    bool
	acked  bitset
}

func (s *rtStamper) Stamp(r *kgo.Record, seq int64) {
	// With the send-time stamp on, the producer set the timestamp to the
	// intended send time to the nanosecond.
	id := appendRoundTripID(make([]byte, 0, 56), s.nonce, s.client, seq, r.Timestamp.UnixNano())
	if s.key {
		r.Key = id
		return
	}
	h := make([]kgo.RecordHeader, len(r.Headers)+1)
	copy(h, r.Headers) // the producer's headers may be shared or carved: never append to them
	h[len(r.Headers)] = kgo.RecordHeader{Key: RoundTripHeader, Value: id}
	r.Headers = h
}

func (s *rtStamper) Done(_ *kgo.Record, seq int64, err error) {
	if err == nil {
		s.acked.set(seq)
	}
}

// rtMatcher matches the outputs read on the reply topic to the records
// sent, for every reading client (one lock per partition's records of a
// poll).
type rtMatcher struct {
	nonce    uint64
	key      bool
	clients  int
	epochNs  int64
	interval time.Duration

	mu                      sync.Mutex
	seen                    []bitset // per producer client
	matched, dup, unmatched int64
	lat                     *measure.Histogram
	series                  map[int]*measure.SeriesHistogram
	firstNs, lastNs         int64
	expect                  int64         // matched outputs that end the wait early; -1 unknown
	all                     chan struct{} // closed once expect is reached
	allClosed               bool
}

func newRTMatcher(nonce uint64, key bool, clients int, epoch time.Time, interval time.Duration) *rtMatcher {
	return &rtMatcher{nonce: nonce, key: key, clients: clients, epochNs: epoch.UnixNano(), interval: interval,
		seen: make([]bitset, clients), lat: measure.NewHistogram(), series: map[int]*measure.SeriesHistogram{},
		expect: -1, all: make(chan struct{})}
}

// idOf is the record's id, as the match reads it (nil: none).
func (m *rtMatcher) idOf(r *kgo.Record) []byte {
	if m.key {
		return r.Key
	}
	for i := range r.Headers {
		if r.Headers[i].Key == RoundTripHeader {
			return r.Headers[i].Value
		}
	}
	return nil
}

// observe matches one partition's records of a poll that returned at
// nowNs (ConsumerSpec.Observe).
func (m *rtMatcher) observe(recs []*kgo.Record, nowNs int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range recs {
		nonce, client, seq, sentNs, ok := parseRoundTripID(m.idOf(r))
		if !ok || nonce != m.nonce || client >= m.clients || seq < 0 {
			m.unmatched++
			continue
		}
		if m.seen[client].set(seq) {
			m.dup++
			continue
		}
		m.matched++
		us := (nowNs - sentNs) / 1000
		m.lat.Record(us)
		if m.interval > 0 {
			idx := int((nowNs - m.epochNs) / int64(m.interval))
			h := m.series[idx]
			if h == nil {
				h = measure.NewSeriesHistogram()
				m.series[idx] = h
			}
			h.Record(us)
		}
		if m.firstNs == 0 {
			m.firstNs = nowNs
		}
		m.lastNs = nowNs
	}
	m.checkAll()
}

// expectAll sets how many matched outputs end the wait (the records
// acknowledged): All closes once they are read.
func (m *rtMatcher) expectAll(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expect = n
	m.checkAll()
}

func (m *rtMatcher) checkAll() {
	if !m.allClosed && m.expect >= 0 && m.matched >= m.expect {
		close(m.all)
		m.allClosed = true
	}
}

// section is what was matched, once the reading has stopped: acked is
// each producer client's acknowledged records.
func (m *rtMatcher) section(acked []bitset, match string, timeout time.Duration) *RoundTripSection {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &RoundTripSection{Match: match, ReplyTimeoutSeconds: timeout.Seconds(),
		Matched: m.matched, Duplicated: m.dup, Unmatched: m.unmatched, IntervalSeconds: m.interval.Seconds()}
	for c, a := range acked {
		n := a.andCount(a)
		s.Acked += n
		if c < len(m.seen) {
			s.Missing += n - a.andCount(m.seen[c])
		} else {
			s.Missing += n
		}
	}
	s.Latency.Merge(m.lat)
	if m.firstNs != 0 {
		s.Reading = []RoundTripSpan{{First: time.Unix(0, m.firstNs), Last: time.Unix(0, m.lastNs)}}
	}
	for idx, h := range m.series {
		s.Series = append(s.Series, RoundTripInterval{Index: idx, Latency: h})
	}
	slices.SortFunc(s.Series, func(a, b RoundTripInterval) int { return a.Index - b.Index })
	return s
}
