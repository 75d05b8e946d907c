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
	Partitions           []PartitionReport
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
}

func newJudge(l *Ledger) *judge {
	return &judge{l: l, parts: map[int32]*PartitionReport{}, lastSeq: map[[2]int64]int64{}}
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
	for _, cl := range clients {
		cl.mu.Lock()
		for _, e := range cl.recs {
			if e.state&stateAcked == 0 {
				continue
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
