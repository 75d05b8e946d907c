package study

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/verify"
	"github.com/kbench/kbench/internal/workload"
)

// A distributed worker shares the ledger of each verified workload while
// the repeat runs: every second it publishes the records acknowledged
// since, so that worker 0 can still check them if the worker is lost.
const (
	shareEvery = time.Second
	// ledgerPieceBytes bounds one piece (24 bytes a record), well under
	// the results topic's largest record.
	ledgerPieceBytes = 4 << 20
)

// ledgerPrefix names repeat name's ledger pieces of a workload; piece n
// is the prefix and n.
func ledgerPrefix(name, workload string) string { return name + ".ledger:" + workload + ":" }

// lostCheck is what worker 0 needs to check a lost worker's records of a
// verified workload from its pieces.
type lostCheck struct {
	workload, topic, acks string
	idempotent            bool
}

// lostChecksOf lists the workloads of a built (whole, not sliced)
// scenario whose records a lost worker's pieces can be checked by: those
// verified, judged record by record (not by latest value per key) and
// not in transactions (whose records settle only at each commit).
func lostChecksOf(psc *plan.Scenario, sc runner.Scenario) []lostCheck {
	var out []lostCheck
	for _, w := range sc.Workloads {
		ts, ok := w.Spec.(workload.Tracked)
		if !ok {
			continue
		}
		i := slices.IndexFunc(psc.Workloads, func(pw plan.Workload) bool { return pw.Name == w.Name })
		if i < 0 || !shareable(psc.Workloads[i]) {
			continue
		}
		out = append(out, lostCheck{workload: w.Name, topic: ts.Producer().Topic, acks: w.Settings["acks"], idempotent: w.Settings["enable.idempotence"] == "true"})
	}
	return out
}

func shareable(w plan.Workload) bool {
	return w.Verify && !w.LatestPerKey && w.Transaction == nil && w.Properties["transactional.id"] == ""
}

// shareLedger publishes l's acknowledged records as they settle, as
// pieces of the repeat's ledger of workload, until the returned stop,
// which shares the rest. A piece that fails to publish is shared again
// under a new number (it may have landed: a record in two pieces counts
// once); a worker that cannot share says so once.
func (wk *worker) shareLedger(ctx context.Context, workload string, l *verify.Ledger) (stop func()) {
	prefix := ledgerPrefix(wk.sharing, workload)
	var cur verify.ShareCursor
	n := 0
	said := false
	publish := func(ctx context.Context) {
		for {
			saved := cur.Clone()
			p := l.Share(&cur, ledgerPieceBytes)
			if p == nil {
				return
			}
			err := wk.w.Publish(ctx, prefix+strconv.Itoa(n), p)
			n++
			if err != nil {
				cur = saved
				if !said && ctx.Err() == nil {
					said = true
					fmt.Fprintf(wk.progress, "kbench: worker %d could not share the ledger of %s (%v): if it is lost, its records cannot be checked\n", wk.d.Run.Index, workload, err)
				}
				return
			}
		}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(shareEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				publish(ctx)
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		pctx, cancel := afterInterrupt(ctx, 10*time.Second)
		defer cancel()
		publish(pctx)
	}
}

// checkLost checks, for worker 0, the records of every member of repeat
// name that sent no slice, from the ledger pieces it published before it
// was lost: each such worker's verifications by worker, for the merge. A
// worker that shared nothing stays unchecked.
func (wk *worker) checkLost(ctx context.Context, name string, checks []lostCheck, members []int, got map[int][]byte) map[int][]result.Verification {
	if len(checks) == 0 || ctx.Err() != nil {
		return nil
	}
	out := map[int][]result.Verification{}
	for _, k := range members {
		if _, ok := got[k]; ok || k == wk.d.Run.Index {
			continue
		}
		pieces, err := wk.w.Pieces(ctx, name+".ledger:", k)
		if err != nil && len(pieces) == 0 {
			fmt.Fprintf(wk.progress, "kbench: %s: reading worker %d's ledger pieces: %v\n", name, k, err)
			continue
		}
		for _, c := range checks {
			var of [][]byte
			for _, key := range slices.Sorted(maps.Keys(pieces)) {
				if strings.HasPrefix(key, ledgerPrefix(name, c.workload)) {
					of = append(of, pieces[key])
				}
			}
			if len(of) == 0 {
				continue
			}
			out[k] = append(out[k], checkPieces(ctx, wk.admin, c, of))
		}
	}
	return out
}

// checkPieces reads c's topic back and judges a lost worker's records by
// the pieces of its ledger.
func checkPieces(ctx context.Context, admin []kgo.Opt, c lostCheck, pieces [][]byte) result.Verification {
	v := result.Verification{Workload: c.workload, Topic: c.topic, Acks: c.acks, Idempotent: c.idempotent, StartedAt: time.Now()}
	l, err := verify.FromPieces(pieces)
	if err != nil {
		v.Error = "its ledger pieces: " + err.Error()
		return v
	}
	v.Acked = l.Acked()
	rep, err := verify.Check(ctx, l, admin, c.topic, verifyIdle)
	if err != nil {
		v.Error = err.Error()
		return v
	}
	fillVerification(&v, rep, l)
	v.Note = strings.TrimPrefix(v.Note+"; checked by worker 0 from the ledger pieces it published before it was lost: records it sent after its last piece count as unacknowledged", "; ")
	return v
}
