package verify

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// FirstOffsets is how many offsets of each problem a report keeps per
// partition.
const FirstOffsets = 5

// Report is what reading the topic back found.
type Report struct {
	Acked          int64 // records acknowledged to the producer
	Read           int64 // records of this run read back, copies included
	Lost           int64 // acknowledged, never read back
	Duplicated     int64 // extra copies read
	OutOfOrder     int64 // read after a later record of the same client on the partition
	Unacknowledged int64 // read back, but the producer was told it failed (or never told)
	// Foreign counts the records of another writer in the topic: another
	// run's (their header carries another run id) or a producer's without
	// kbench's header.
	Foreign int64
	// Aborted are records acknowledged in transactions aborted on
	// purpose: owed to no read_committed reader. AbortedRead of them
	// were read back all the same (read_committed): a broken promise.
	Aborted, AbortedRead int64
	// With latest per key (a compacted topic): Keys written; LatestLost
	// of them whose newest acknowledged value was not read back (Lost is
	// then this); Replaced of them whose newest value was followed by
	// another writer's record of the key (a tombstone or an update: not
	// this run's to judge); Superseded older values of this run still in
	// the topic (compaction had not removed them); CleanerWait how long
	// the read-back waited for the cleaner.
	LatestPerKey                           bool
	Keys, LatestLost, Replaced, Superseded int64
	CleanerWait                            time.Duration
	Partitions                             []PartitionReport
}

// PartitionReport is one partition's share of a Report, with the offsets
// of the first few records of each problem (lost: the offsets they were
// acknowledged at).
type PartitionReport struct {
	Partition                                    int32
	Acked, Lost, Duplicated, OutOfOrder, Unacked int64
	Aborted, AbortedRead                         int64
	FirstLost, FirstDuplicated, FirstOutOfOrder  []int64
	FirstUnacknowledged, FirstAbortedRead        []int64
}

// Clean reports whether nothing was lost, duplicated, reordered, landed
// unacknowledged, or read from an aborted transaction.
func (r *Report) Clean() bool {
	return r.Lost == 0 && r.Duplicated == 0 && r.OutOfOrder == 0 && r.Unacknowledged == 0 && r.AbortedRead == 0
}

// Check reads topic from the start to its end with a fresh client (opts:
// bootstrap servers and security) and judges every record of the ledger.
// The end offsets are listed again once reached, until they stay put;
// reading stops with an error when no record arrives for idle.
func Check(ctx context.Context, l *Ledger, opts []kgo.Opt, topic string, idle time.Duration) (*Report, error) {
	admCl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	committed := l.transactional.Load()
	ends, err := endOffsets(ctx, adm, topic, committed)
	if err != nil {
		return nil, err
	}
	starts := map[int32]kgo.Offset{}
	for p := range ends {
		starts[p] = kgo.NewOffset().AtStart()
	}
	isolation := kgo.ReadUncommitted()
	if committed {
		// As a read_committed consumer: what a transactional producer
		// promises is that committed records, and only they, are read.
		isolation = kgo.ReadCommitted()
	}
	cl, err := kgo.NewClient(append(append([]kgo.Opt(nil), opts...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}),
		kgo.FetchIsolationLevel(isolation),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(200*time.Millisecond),
		// A transaction's commit or abort marker takes an offset, often a
		// partition's last: without the markers the read never reaches the
		// end offset and stalls for its idle bound.
		kgo.KeepControlRecords(),
		kgo.ClientID("kbench-verify-check"),
	)...)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer cl.Close()

	l.resetSeen() // a read again (waiting for the cleaner) starts afresh
	j := newJudge(l)
	next := map[int32]int64{} // the offset after the last read
	lastProgress := time.Now()
	var lastErr error
	for {
		if reached(next, ends) {
			again, err := endOffsets(ctx, adm, topic, committed)
			if err != nil {
				return nil, err
			}
			if sameEnds(again, ends) {
				break
			}
			ends = again
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			next[r.Partition] = r.Offset + 1
			if !r.Attrs.IsControl() {
				j.read(r)
				if l.latestPerKey {
					j.lastOfKey[string(r.Key)] = max(j.lastOfKey[string(r.Key)], r.Offset+1)
				}
			}
		})
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) && !errors.Is(fe.Err, context.Canceled) {
				lastErr = fmt.Errorf("partition %d: %w", fe.Partition, fe.Err)
			}
		}
		if n > 0 {
			lastProgress = time.Now()
		} else if time.Since(lastProgress) > idle {
			msg := fmt.Sprintf("verify: reading %s back stalled for %s: %s", topic, idle, behind(next, ends))
			if lastErr != nil {
				return nil, fmt.Errorf("%s; last error: %w", msg, lastErr)
			}
			return nil, errors.New(msg)
		}
	}
	return j.report(), nil
}

// endOffsets lists the topic's end offsets by partition: with committed,
// the last stable offsets, where a read_committed reader ends.
func endOffsets(ctx context.Context, adm *kadm.Client, topic string, committed bool) (map[int32]int64, error) {
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	list := adm.ListEndOffsets
	if committed {
		list = adm.ListCommittedOffsets
	}
	res, err := list(lctx, topic)
	if err != nil {
		return nil, fmt.Errorf("verify: list end offsets of %s: %w", topic, err)
	}
	out := map[int32]int64{}
	var errs []error
	res.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			errs = append(errs, fmt.Errorf("partition %d: %w", o.Partition, o.Err))
			return
		}
		out[o.Partition] = o.Offset
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("verify: list end offsets of %s: %w", topic, errors.Join(errs...))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("verify: topic %s has no partitions", topic)
	}
	return out, nil
}

func reached(next, ends map[int32]int64) bool {
	for p, e := range ends {
		if next[p] < e {
			return false
		}
	}
	return true
}

func sameEnds(a, b map[int32]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for p, e := range a {
		if b[p] != e {
			return false
		}
	}
	return true
}

func behind(next, ends map[int32]int64) string {
	ps := make([]int32, 0, len(ends))
	for p := range ends {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	s := ""
	for _, p := range ps {
		if next[p] < ends[p] {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("partition %d at offset %d of %d", p, next[p], ends[p])
		}
	}
	return s
}

// judge applies the rules record by record.
type judge struct {
	l     *Ledger
	parts map[int32]*PartitionReport
	// lastSeq is the highest sequence read per partition and client.
	lastSeq map[[2]int64]int64
	copies  int64
	foreign int64
	// lastOfKey is, per key, the offset after the newest record of it
	// read (any writer's), with latest per key.
	lastOfKey map[string]int64
	// superseded counts this run's records read that an acknowledged
	// newer value of their key replaced.
	superseded int64
}

func newJudge(l *Ledger) *judge {
	return &judge{l: l, parts: map[int32]*PartitionReport{}, lastSeq: map[[2]int64]int64{}, lastOfKey: map[string]int64{}}
}

func (j *judge) part(p int32) *PartitionReport {
	pr := j.parts[p]
	if pr == nil {
		pr = &PartitionReport{Partition: p}
		j.parts[p] = pr
	}
	return pr
}

func keep(list []int64, off int64) []int64 {
	if len(list) < FirstOffsets {
		return append(list, off)
	}
	return list
}

func (j *judge) read(r *kgo.Record) {
	id, err := j.l.identify(r)
	if err != nil {
		j.foreign++ // another writer's record (a reused topic, another run)
		return
	}
	j.copies++
	if j.l.latestPerKey {
		j.l.keysMu.Lock()
		if k, ok := j.l.latest[string(r.Key)]; ok && r.Offset < k.offset {
			j.superseded++
		}
		j.l.keysMu.Unlock()
	}
	pr := j.part(r.Partition)
	cl := j.l.client(id.Client)
	var acked, dup, aborted bool
	if cl != nil {
		cl.mu.Lock()
		if id.Seq < int64(len(cl.recs)) {
			e := &cl.recs[id.Seq]
			acked = e.state&stateAcked != 0 && e.state&stateUncommitted == 0
			aborted = e.state&stateAborted != 0
			dup = e.seen > 0
			if e.seen < 255 {
				e.seen++
			}
		}
		cl.mu.Unlock()
	}
	if dup {
		pr.Duplicated++
		pr.FirstDuplicated = keep(pr.FirstDuplicated, r.Offset)
		return // a copy: its order says nothing more
	}
	if aborted {
		// Read as committed although its transaction was aborted.
		pr.AbortedRead++
		pr.FirstAbortedRead = keep(pr.FirstAbortedRead, r.Offset)
		return
	}
	if !acked {
		pr.Unacked++
		pr.FirstUnacknowledged = keep(pr.FirstUnacknowledged, r.Offset)
	}
	k := [2]int64{int64(r.Partition), int64(id.Client)}
	if last, ok := j.lastSeq[k]; ok && id.Seq < last {
		pr.OutOfOrder++
		pr.FirstOutOfOrder = keep(pr.FirstOutOfOrder, r.Offset)
	} else {
		j.lastSeq[k] = id.Seq
	}
}

// report adds the acknowledged records never read.
func (j *judge) report() *Report {
	j.l.mu.Lock()
	clients := append([]*clientLedger(nil), j.l.clients...)
	j.l.mu.Unlock()
	var latest map[[2]int64]bool // client, seq of each key's newest
	if j.l.latestPerKey {
		latest = map[[2]int64]bool{}
		j.l.keysMu.Lock()
		for _, k := range j.l.latest {
			latest[[2]int64{int64(k.client), k.seq}] = true
		}
		j.l.keysMu.Unlock()
	}
	for ci, cl := range clients {
		cl.mu.Lock()
		for seq, e := range cl.recs {
			if e.state&stateAcked == 0 {
				continue
			}
			if latest != nil && !latest[[2]int64{int64(ci), int64(seq)}] {
				continue // an older value of its key: compaction may remove it
			}
			pr := j.part(e.partition)
			if e.state&stateAborted != 0 {
				pr.Aborted++ // acknowledged, then aborted: owed to no reader
				continue
			}
			if e.state&stateUncommitted != 0 {
				continue // its commit failed: neither owed nor forbidden
			}
			pr.Acked++
			if e.seen == 0 {
				pr.Lost++
				if len(pr.FirstLost) < FirstOffsets {
					pr.FirstLost = append(pr.FirstLost, e.offset)
				}
			}
		}
		cl.mu.Unlock()
	}
	rep := &Report{Read: j.copies, Foreign: j.foreign}
	if j.l.latestPerKey {
		j.judgeKeys(rep)
	}
	for _, pr := range j.parts {
		sort.Slice(pr.FirstLost, func(a, b int) bool { return pr.FirstLost[a] < pr.FirstLost[b] })
		rep.Acked += pr.Acked
		rep.Lost += pr.Lost
		rep.Duplicated += pr.Duplicated
		rep.OutOfOrder += pr.OutOfOrder
		rep.Unacknowledged += pr.Unacked
		rep.Aborted += pr.Aborted
		rep.AbortedRead += pr.AbortedRead
		rep.Partitions = append(rep.Partitions, *pr)
	}
	sort.Slice(rep.Partitions, func(a, b int) bool { return rep.Partitions[a].Partition < rep.Partitions[b].Partition })
	return rep
}

// judgeKeys counts, with latest per key, the keys whose newest value was
// read, replaced by another writer, or lost, and this run's older values
// still present. It runs before the partitions are summed: a key replaced
// by another writer is taken off its partition's lost.
func (j *judge) judgeKeys(rep *Report) {
	rep.LatestPerKey = true
	j.l.keysMu.Lock()
	defer j.l.keysMu.Unlock()
	rep.Keys = int64(len(j.l.latest))
	for key, k := range j.l.latest {
		cl := j.l.client(k.client)
		seen := false
		if cl != nil {
			cl.mu.Lock()
			seen = k.seq < int64(len(cl.recs)) && cl.recs[k.seq].seen > 0
			cl.mu.Unlock()
		}
		switch {
		case seen:
		case j.lastOfKey[key] > k.offset+1:
			rep.Replaced++
			pr := j.part(k.partition)
			pr.Lost--
			pr.Acked--
		default:
			rep.LatestLost++
		}
	}
	rep.Superseded = j.superseded
}

// CheckCompacted is Check for a compacted topic judged by latest value
// per key: it reads the topic back again every cleanerPoll while this
// run's older values are still there, for at most cleanerWait, so the
// cleaner has run before the newest values are judged (the segment being
// written is never cleaned: its older values stay, and are counted).
func CheckCompacted(ctx context.Context, l *Ledger, opts []kgo.Opt, topic string, idle, cleanerWait time.Duration) (*Report, error) {
	began := time.Now()
	last, same := int64(-1), 0
	for {
		rep, err := Check(ctx, l, opts, topic, idle)
		if err != nil {
			return nil, err
		}
		waited := time.Since(began)
		if rep.Superseded == last {
			same++
		} else {
			last, same = rep.Superseded, 0
		}
		// Done when nothing older is left, when the cleaner has left the
		// count alone for its default backoff (15 s: it is idle, the rest
		// is in the segment being written), or at the bound.
		if rep.Superseded == 0 || time.Duration(same)*cleanerPoll >= cleanerIdle || waited+cleanerPoll > cleanerWait {
			rep.CleanerWait = waited
			return rep, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(cleanerPoll):
		}
	}
}

// cleanerPoll spaces the read-backs of a compacted topic; cleanerIdle is
// how long an unchanged count means the cleaner is done with it (Kafka's
// log.cleaner.backoff.ms default).
const (
	cleanerPoll = 5 * time.Second
	cleanerIdle = 15 * time.Second
)
