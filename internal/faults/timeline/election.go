package timeline

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/kbench/kbench/internal/faults"
)

// The election measurement: after an action takes a broker away, how long
// until every partition it led has a leader again. Measurements poll the
// cluster's metadata, from the client's side, as a producer would see it.

// watched is a partition as it was when a fault began.
type watched struct {
	epoch         int32 // leader epoch: any election raises it
	replicas, isr int
}

// election is a running election measurement; back is closed when its
// broker was resumed.
type election struct {
	back   chan struct{}
	closed bool
}

// metadata looks at the scenario's topics.
func (t *Timeline) metadata(ctx context.Context) (kadm.Metadata, error) {
	return t.view.metadata(ctx, t.cfg.Topics...)
}

// leadersOf lists the partitions of the scenario's topics broker leads.
func (t *Timeline) leadersOf(ctx context.Context, broker int32) (map[faults.Partition]watched, error) {
	m, err := t.metadata(ctx)
	if err != nil {
		return nil, err
	}
	out := map[faults.Partition]watched{}
	for _, td := range m.Topics {
		for _, pd := range td.Partitions {
			if pd.Leader == broker {
				out[faults.Partition{Topic: td.Topic, Partition: pd.Partition}] = watched{epoch: pd.LeaderEpoch, replicas: len(pd.Replicas), isr: len(pd.ISR)}
			}
		}
	}
	return out, nil
}

// startElection measures, for fault i, the election of new leaders for
// the partitions broker led.
func (t *Timeline) startElection(i int, broker int32, led map[faults.Partition]watched, began time.Time) {
	e := &election{back: make(chan struct{})}
	t.mu.Lock()
	t.elections[broker] = e
	t.mu.Unlock()
	t.measure(i, "the election", func(ctx context.Context) {
		t.measureElection(ctx, i, broker, led, began, e.back)
		t.mu.Lock()
		if t.elections[broker] == e {
			delete(t.elections, broker)
		}
		t.mu.Unlock()
	})
}

// resumed tells broker's election measurement that the broker runs again.
func (t *Timeline) resumed(broker int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.elections[broker]; ok && !e.closed {
		e.closed = true
		close(e.back)
	}
}

// measureElection polls metadata until every partition broker led has a
// leader again: another broker (an election), or, for a partition with no
// other in-sync replica, broker itself back with a new leader epoch. After
// back is closed (broker resumed), it watches Settle longer: a broker
// resumed before its session expired keeps its partitions, and no election
// comes.
func (t *Timeline) measureElection(ctx context.Context, i int, broker int32, led map[faults.Partition]watched, began time.Time, back <-chan struct{}) {
	moved := map[faults.Partition]int32{}   // by partition: its new leader
	returned := map[faults.Partition]bool{} // back with broker
	var lastMove, lastBack time.Duration
	var settle <-chan time.Time
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		if m, err := t.metadata(ctx); err == nil {
			for p, w := range led {
				if _, ok := moved[p]; ok || returned[p] {
					continue
				}
				pd, ok := m.Topics[p.Topic].Partitions[p.Partition]
				switch {
				case !ok || pd.Leader < 0:
				case pd.Leader != broker:
					moved[p], lastMove = pd.Leader, time.Since(began)
				case pd.LeaderEpoch > w.epoch:
					returned[p], lastBack = true, time.Since(began)
				}
			}
		}
		if len(moved)+len(returned) == len(led) {
			t.electionSeen(i, broker, led, moved, returned, lastMove, lastBack)
			return
		}
		select {
		case <-ctx.Done():
			d := time.Since(began)
			t.set(i, func(r *Result) {
				r.ElectionTimedOut, r.ElectionNote = true, "not within "+seconds(d)
				r.Affected = movedList(led, moved, returned, broker)
			})
			return
		case <-back:
			back = nil
			timer := time.NewTimer(t.cfg.Settle)
			defer timer.Stop()
			settle = timer.C
		case <-settle:
			back := "resumed"
			if t.get(i).Cut != "" {
				back = "healed"
			}
			t.set(i, func(r *Result) {
				r.ElectionNote = fmt.Sprintf("none: broker %d was %s before the cluster moved its leaders", broker, back)
				if len(moved) > 0 {
					d := lastMove
					r.Election = &d
					r.ElectionNote = fmt.Sprintf("the other partitions stayed with broker %d, %s before the cluster moved them", broker, back)
				}
				r.Affected = movedList(led, moved, returned, broker)
			})
			t.cfg.Logf("fault %s: broker %d was %s before the cluster moved its leaders", t.label(i), broker, back)
			return
		case <-tick.C:
		}
	}
}

// electionSeen records an election measurement that saw every partition
// get a leader again.
func (t *Timeline) electionSeen(i int, broker int32, led map[faults.Partition]watched, moved map[faults.Partition]int32, returned map[faults.Partition]bool, lastMove, lastBack time.Duration) {
	note := ""
	if len(returned) > 0 {
		note = backNote(led, returned, broker, lastBack)
		if len(moved) == 0 {
			note = "none: " + note
		}
	}
	t.set(i, func(r *Result) {
		if len(moved) > 0 {
			d := lastMove
			r.Election = &d
		}
		r.ElectionNote = note
		r.Affected = movedList(led, moved, returned, broker)
	})
	if len(moved) > 0 {
		t.cfg.Logf("fault %s: every partition broker %d led has a new leader after %s", t.label(i), broker, lastMove.Round(time.Millisecond))
	}
	if note != "" {
		t.cfg.Logf("fault %s: %s", t.label(i), note)
	}
}

// backNote says which partitions came back with their broker, and why no
// other broker took them.
func backNote(led map[faults.Partition]watched, returned map[faults.Partition]bool, broker int32, after time.Duration) string {
	names := make([]string, 0, len(returned))
	alone := true // no other replica at all, rather than none in sync
	for p := range returned {
		names = append(names, fmt.Sprintf("%s-%d", p.Topic, p.Partition))
		if led[p].replicas > 1 {
			alone = false
		}
	}
	sort.Strings(names)
	list := names
	if len(list) > 3 {
		list = append(list[:3:3], fmt.Sprintf("%d more", len(names)-3))
	}
	what := "no other in-sync replica"
	if alone {
		what = "no other replica"
	}
	verb := "has"
	if len(names) > 1 {
		verb = "have"
	}
	return fmt.Sprintf("%s %s %s and came back with broker %d after %s", strings.Join(list, ", "), verb, what, broker, seconds(after))
}

// seconds writes d as "25.3 s", or "120 s" from a minute on.
func seconds(d time.Duration) string {
	if d >= time.Minute {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func movedList(led map[faults.Partition]watched, moved map[faults.Partition]int32, returned map[faults.Partition]bool, broker int32) []Moved {
	out := make([]Moved, 0, len(led))
	for p := range led {
		to, ok := moved[p]
		switch {
		case returned[p]:
			to = broker
		case !ok:
			to = -1
		}
		out = append(out, Moved{Topic: p.Topic, Partition: p.Partition, From: broker, To: to})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Topic != out[b].Topic {
			return out[a].Topic < out[b].Topic
		}
		return out[a].Partition < out[b].Partition
	})
	return out
}
