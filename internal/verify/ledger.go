// Package verify proves what a producer workload's records became: every
// record carries a header with the run, its producer client and its
// sequence number; a Ledger remembers what each record's acknowledgement
// said; after the run Check reads the topic back from the start with a
// fresh client and reports, per partition, acknowledged records lost,
// records duplicated and out of order, and records that landed without an
// acknowledgement, as Kafka's system tests and Jepsen judge them.
//
// While the run goes on, a live Reader marks records as seen, so that
// Unseen, the count of acknowledged records not yet readable, can be kept
// as a series (Jepsen's "acknowledged but not yet seen"); the Ledger also
// keeps each partition's longest gaps between acknowledgements, from
// which fault measurement takes the unavailability window.
package verify

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kbench/kbench/internal/workload/produce"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Header is the key of the header every verified record carries. Its value
// is headerLen bytes: the run id, the client and the sequence number, big
// endian.
const Header = "kbench-verify"

const headerLen = 8 + 4 + 8

// Record states, bits of entry.state.
const (
	stateSent        = 1 << iota // stamped and handed to the client
	stateAcked                   // acknowledged
	stateFailed                  // its promise said it failed
	stateSeenLive                // the live reader saw it
	stateAborted                 // in a transaction aborted on purpose
	stateUncommitted             // in a transaction whose commit failed: its fate is the cluster's
)

// entry is one record: 16 bytes, so a million records cost 16 MB.
type entry struct {
	offset    int64 // the acknowledged offset
	partition int32
	state     uint8
	seen      uint8 // copies read by the final check (saturates)
}

// Ledger remembers every record of one workload. Its methods are safe for
// concurrent use.
type Ledger struct {
	run     uint64
	stamp   bool // verifying: stamp headers and remember every record
	start   time.Time
	mu      sync.Mutex // guards clients' growth
	clients []*clientLedger

	acked     atomic.Int64
	ackedSeen atomic.Int64 // acknowledged and seen by the live reader
	// transactional: its records went in transactions; the read-back
	// reads committed records only, as a read_committed consumer.
	transactional atomic.Bool

	// latest, when judging by latest value per key (a compacted topic):
	// each key's newest acknowledged record.
	latestPerKey bool
	keysMu       sync.Mutex
	latest       map[string]keyPos

	gapMu sync.Mutex
	parts map[int32]*ackGaps
}

type clientLedger struct {
	mu   sync.Mutex
	recs []entry // by sequence number
}

// New returns an empty ledger with a random run id. Without stamp it only
// counts acknowledgements and keeps their gaps (a run with faults but no
// verification): no header, no memory per record.
func New(stamp bool) *Ledger {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Ledger{run: binary.BigEndian.Uint64(b[:]) | 1, stamp: stamp, start: time.Now(), parts: map[int32]*ackGaps{}}
}

// keyPos is where a key's newest acknowledged record landed, and which
// record it was.
type keyPos struct {
	partition int32
	offset    int64
	client    uint32
	seq       int64
}

// JudgeLatestPerKey makes the ledger judge by what compaction promises:
// only each key's newest acknowledged value is owed to the read-back.
// Call it before the first record is produced.
func (l *Ledger) JudgeLatestPerKey() {
	l.latestPerKey = true
	l.latest = map[string]keyPos{}
}

// SetStart sets the time ack gaps are measured from; call it before the
// first record is produced.
func (l *Ledger) SetStart(t time.Time) { l.start = t }

// Tracker returns client i's tracker, for produce.ProducerSpec.Tracker.
func (l *Ledger) Tracker(i int) produce.RecordTracker {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.clients) <= i {
		l.clients = append(l.clients, &clientLedger{})
	}
	return &tracker{l: l, client: uint32(i), cl: l.clients[i]}
}

type tracker struct {
	l      *Ledger
	client uint32
	cl     *clientLedger
}

// Stamp adds the verification header and records the send.
func (t *tracker) Stamp(r *kgo.Record, seq int64) {
	if !t.l.stamp {
		return
	}
	v := make([]byte, headerLen)
	binary.BigEndian.PutUint64(v, t.l.run)
	binary.BigEndian.PutUint32(v[8:], t.client)
	binary.BigEndian.PutUint64(v[12:], uint64(seq))
	// A new slice: the record's headers may be shared by every record.
	hs := make([]kgo.RecordHeader, len(r.Headers), len(r.Headers)+1)
	copy(hs, r.Headers)
	r.Headers = append(hs, kgo.RecordHeader{Key: Header, Value: v})

	t.cl.mu.Lock()
	e := t.cl.at(seq)
	e.state |= stateSent
	t.cl.mu.Unlock()
}

// Done records the outcome.
func (t *tracker) Done(r *kgo.Record, seq int64, err error) {
	if !t.l.stamp {
		if err == nil {
			t.l.acked.Add(1)
			t.l.AckAt(r.Partition, time.Since(t.l.start))
		}
		return
	}
	t.cl.mu.Lock()
	e := t.cl.at(seq)
	if err != nil {
		e.state |= stateFailed
		t.cl.mu.Unlock()
		return
	}
	e.state |= stateAcked
	e.partition, e.offset = r.Partition, r.Offset
	seen := e.state&stateSeenLive != 0
	t.cl.mu.Unlock()
	if t.l.latestPerKey {
		t.l.keysMu.Lock()
		if k, ok := t.l.latest[string(r.Key)]; !ok || r.Offset > k.offset || r.Partition != k.partition {
			t.l.latest[string(r.Key)] = keyPos{partition: r.Partition, offset: r.Offset, client: t.client, seq: seq}
		}
		t.l.keysMu.Unlock()
	}
	t.l.acked.Add(1)
	if seen {
		t.l.ackedSeen.Add(1)
	}
	t.l.AckAt(r.Partition, time.Since(t.l.start))
}

// TransactionEnded marks the records of a transaction that was aborted,
// or whose commit failed: they are not owed to a read_committed reader.
func (t *tracker) TransactionEnded(first, n int64, o produce.TransactionOutcome) {
	t.l.transactional.Store(true)
	if !t.l.stamp || o == produce.TransactionCommitted {
		return
	}
	flag := uint8(stateAborted)
	if o == produce.TransactionFailed {
		flag = stateUncommitted
	}
	t.cl.mu.Lock()
	for seq := first; seq < first+n; seq++ {
		t.cl.at(seq).state |= flag
	}
	t.cl.mu.Unlock()
}

// at returns the entry of seq, growing the ledger; cl.mu must be held.
func (cl *clientLedger) at(seq int64) *entry {
	if seq >= int64(len(cl.recs)) {
		if seq >= int64(cap(cl.recs)) {
			grown := make([]entry, seq+1, max(2*cap(cl.recs), int(seq)+1, 1024))
			copy(grown, cl.recs)
			cl.recs = grown
		} else {
			cl.recs = cl.recs[:seq+1]
		}
	}
	return &cl.recs[seq]
}

// ID is a record's identity, decoded from its header.
type ID struct {
	Client uint32
	Seq    int64
}

// errForeign marks a record of another run, or without the header.
var errForeign = errors.New("not this run's record")

// identify reads r's verification header.
func (l *Ledger) identify(r *kgo.Record) (ID, error) {
	for _, h := range r.Headers {
		if h.Key != Header {
			continue
		}
		if len(h.Value) != headerLen || binary.BigEndian.Uint64(h.Value) != l.run {
			return ID{}, errForeign
		}
		return ID{Client: binary.BigEndian.Uint32(h.Value[8:]), Seq: int64(binary.BigEndian.Uint64(h.Value[12:]))}, nil
	}
	return ID{}, errForeign
}

// seeLive marks a record read by the live reader.
func (l *Ledger) seeLive(id ID) {
	cl := l.client(id.Client)
	if cl == nil {
		return
	}
	cl.mu.Lock()
	if id.Seq >= int64(len(cl.recs)) {
		cl.mu.Unlock()
		return // read before its Stamp returned: rare, and only delays the count
	}
	e := &cl.recs[id.Seq]
	first := e.state&stateSeenLive == 0
	e.state |= stateSeenLive
	acked := e.state&stateAcked != 0
	cl.mu.Unlock()
	if first && acked {
		l.ackedSeen.Add(1)
	}
}

func (l *Ledger) client(i uint32) *clientLedger {
	l.mu.Lock()
	defer l.mu.Unlock()
	if int(i) >= len(l.clients) {
		return nil
	}
	return l.clients[i]
}

// LatestPerKey reports whether the ledger judges by latest value per key.
func (l *Ledger) LatestPerKey() bool { return l.latestPerKey }

// resetSeen forgets what an earlier read-back read.
func (l *Ledger) resetSeen() {
	l.mu.Lock()
	clients := append([]*clientLedger(nil), l.clients...)
	l.mu.Unlock()
	for _, cl := range clients {
		cl.mu.Lock()
		for i := range cl.recs {
			cl.recs[i].seen = 0
		}
		cl.mu.Unlock()
	}
}

// Transactional reports whether the records went in transactions (any
// transaction ended), so that the read-back was read_committed.
func (l *Ledger) Transactional() bool { return l.transactional.Load() }

// Acked is the number of records acknowledged so far.
func (l *Ledger) Acked() int64 { return l.acked.Load() }

// Unseen is the number of acknowledged records the live reader has not
// read yet.
func (l *Ledger) Unseen() int64 { return l.acked.Load() - l.ackedSeen.Load() }
