package produce

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/workload/engine"
)

// The closed model (virtual users, as k6 runs them): each user sends one
// record and waits for its acknowledgement before sending the next, so the
// rate is what the cluster's latency allows (users ÷ latency, Little's
// law) and latency counts from the actual send: no record waits for a
// schedule, so nothing is omitted.

// vuState is what one virtual user owns: its own record sources (they
// are not safe to share) and the channel its acknowledgements arrive on.
type vuState struct {
	parts   recordParts
	values  payload.Source
	keys    *payload.Keys
	stamper engine.SentStamper
	done    chan struct{}
	sent    int64
}

// users is the most virtual users the spec has at once.
func (sp ProducerSpec) users() int {
	if sp.VURamp != nil {
		return sp.VURamp.Max()
	}
	return sp.VUs
}

// sendVUs runs this client's share of the virtual users until its
// records are sent or sendCtx ends. With a ramp, user u of client c is
// user u·clients+c of the whole workload, active while the ramp has more
// users than that: the workload's count is exact at every moment, however
// the users are split.
func (c *producerClient) sendVUs(ctx, sendCtx context.Context, users int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	vus := make([]*vuState, users)
	for u := range vus {
		global := u*int(c.clients) + int(c.index)
		vu := &vuState{values: c.values.Clone(uint64(c.index)<<20 + uint64(u) + 1), done: make(chan struct{}, 1),
			parts: c.recordParts.clone(uint64(c.index)<<20 + uint64(u) + 1)}
		if c.keys != nil {
			vu.keys = c.keys.Clone(uint64(c.index)<<20 + uint64(u) + 1)
		}
		vus[u] = vu
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sendCtx.Err() == nil {
				if c.ramp != nil && !c.waitActive(sendCtx, global) {
					return
				}
				i := next.Add(1) - 1
				if c.records > 0 && i >= c.records {
					return
				}
				r := c.prepareVU(vu, i)
				if i == 0 {
					c.firstSend.CompareAndSwap(0, time.Now().UnixNano())
				}
				vu.sent++
				c.cl.Produce(c.end.ctx, r, c.promiseFn)
				select {
				case <-vu.done:
				case <-ctx.Done():
					return // interrupted: the run's drain accounts for it
				case <-c.end.ctx.Done():
					return // past the deadline: cancelled, unresolved
				}
			}
		}()
	}
	wg.Wait()
	for _, vu := range vus {
		c.produced += vu.sent
	}
}

// prepareVU is prepare for a virtual user: its own sources, the actual
// send time, and the channel the promise signals.
func (c *producerClient) prepareVU(vu *vuState, i int64) *kgo.Record {
	sl := slotPool.Get().(*slot)
	sl.rec = kgo.Record{Topic: c.topic, Value: vu.values.Value(i*c.clients + c.index)}
	sl.done = vu.done
	r := &sl.rec
	r.Headers = c.headers
	if vu.keys != nil {
		r.Key = vu.keys.Key()
	}
	vu.parts.fill(r, i*c.clients+c.index)
	sl.sent = time.Since(c.start)
	r.Timestamp = c.start.Add(sl.sent)
	if c.stamp {
		vu.stamper.Stamp(r, r.Timestamp)
	}
	sl.seq = i
	if c.tracker != nil {
		c.tracker.Stamp(r, i)
	}
	return r
}

// waitActive waits until the ramp has the user active; false when it will
// not be again before the ramp ends, or sendCtx ended.
func (c *producerClient) waitActive(sendCtx context.Context, user int) bool {
	el := time.Since(c.start)
	if c.ramp.Active(el) > user {
		return true
	}
	at, ok := c.ramp.Next(user, el)
	if !ok {
		return false
	}
	t := time.NewTimer(at - el)
	defer t.Stop()
	select {
	case <-sendCtx.Done():
		return false
	case <-t.C:
		return true
	}
}
