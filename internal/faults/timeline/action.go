package timeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kbench/kbench/internal/faults"
)

// fire carries out fault i and starts its measurements: what they are
// follows from its kind's Effect.
func (t *Timeline) fire(ctx context.Context, i int) {
	f := t.cfg.Faults[i]
	at := time.Since(t.start)
	kind, ok := t.cfg.Kinds[f.Action]
	var broker int32 = -1
	var link *faults.Link
	err := fmt.Errorf("unknown fault action %q", f.Action)
	if ok {
		broker, link, err = t.resolveFault(ctx, f)
	}
	if err == nil && broker >= 0 {
		err = t.claim(i, broker)
	}
	if err != nil {
		t.set(i, func(r *Result) { r.At, r.Broker, r.Status, r.Error = at, broker, StatusFailed, err.Error() })
		t.cfg.Logf("fault %s could not happen: %v", label(f), err)
		return
	}
	if broker >= 0 {
		defer t.release(broker)
	}
	eff := effectOn(kind, link)
	a := faults.Action{Brokers: []int32{broker}, Params: faults.WithDefaults(kind, f.Params), Actor: t.cfg.Actor, Link: link, Ended: t.stop}
	if eff.Heals {
		a.Undo = t.takeHeal(f.Target.Fault)
	}
	began := t.begin(ctx, i, broker, eff, at, cutOf(eff, link))
	done, err := kind.Act(ctx, a)
	took := time.Since(began)
	t.set(i, func(r *Result) {
		r.Took, r.Output = took, done.Output
		r.Status = StatusDone
		if err != nil {
			r.Status, r.Error = StatusFailed, err.Error()
		}
	})
	t.mu.Lock()
	t.heals[i] = done.Heal // also after a failure: what it did may need undoing
	t.mu.Unlock()
	if err != nil {
		t.cfg.Logf("fault %s failed: %v", label(f), err)
		return
	}
	if !done.HealedAt.IsZero() {
		// It undid itself (a duration): its brokers are back since then.
		eff.Down, eff.Back, began = false, true, done.HealedAt
		if link != nil {
			t.healedLink(i)
		}
	}
	if eff.Heals {
		t.healedLink(t.index(f.Target.Fault))
	}
	t.after(i, broker, eff, began)
}

// healedLink tells fault i's measurements that its link was healed: the
// election watch settles (a cut shorter than the session moves nothing)
// and the ISR shrink watch ends (a later fault's shrink is not this one's).
func (t *Timeline) healedLink(i int) {
	if i < 0 {
		return
	}
	r := t.get(i)
	t.mu.Lock()
	if ch, ok := t.healed[i]; ok {
		close(ch)
		delete(t.healed, i)
	}
	t.mu.Unlock()
	if r.Broker >= 0 && r.Cut != "" {
		t.resumed(r.Broker)
	}
}

// cutOf says what a network partition of one broker cut it from
// (Result.Cut): on a local cluster a node side is the whole node, broker
// and controller; the word brokers is the brokers' listeners only, so
// "between: [{broker: 2}, brokers]" leaves the node's controller
// connections, and its session, alone.
func cutOf(eff faults.Effect, link *faults.Link) string {
	if !eff.Cuts || link == nil || len(link[0].Nodes) != 1 {
		return ""
	}
	switch o := link[1]; {
	case o.Controllers || len(o.Nodes) > 0:
		return CutQuorum
	case o.Brokers:
		return CutBrokers
	}
	return ""
}

// effectOn is kind's effect on link: a network partition that leaves the
// brokers it cuts their controllers (cut from clients only) moves no
// leaders: it disrupts, it takes nothing away.
func effectOn(kind faults.Kind, link *faults.Link) faults.Effect {
	eff := kind.Effect
	if link != nil && eff.Away && !link[1].Controllers && len(link[1].Nodes) == 0 {
		eff.Away, eff.Down, eff.Disrupts = false, false, true
	}
	return eff
}

// begin marks the start of fault i's action on broker: an action that
// takes a running broker away has the partitions it leads watched until
// each has a leader again (the election). It returns when the action
// begins, the fault's time (at is when it fired).
func (t *Timeline) begin(ctx context.Context, i int, broker int32, eff faults.Effect, at time.Duration, cut string) time.Time {
	f := t.cfg.Faults[i]
	t.mu.Lock()
	wasDown := t.down[broker]
	t.mu.Unlock()
	// Only an action on a running broker moves its leaders: after a kill,
	// the broker keeps them until it is fenced, and that election belongs
	// to the kill, also when a restart has begun by then.
	// A leader cut from the other brokers but not from its controller is
	// watched too: whether it keeps its partitions is the point (it does,
	// as its session goes on), and the watch ends with the cut's heal.
	var led map[faults.Partition]watched
	if (eff.Away || cut == CutBrokers) && !wasDown {
		led, _ = t.leadersOf(ctx, broker)
	}
	replicas, ofPlan := 0, 0
	if (eff.Away || eff.Disrupts) && !wasDown && broker >= 0 {
		replicas, ofPlan = t.replicasOn(ctx, broker)
	}
	// The fault's time is the action's, taken after the look-ups: on a
	// loaded machine they took 1.41 s, and a time taken when the fault
	// fired put time + election before the controller's fencing.
	began := time.Now()
	acted := began.Sub(t.start)
	t.set(i, func(r *Result) {
		r.At, r.Fired, r.Broker, r.Gaps, r.Cut = acted, at, broker, eff.Away || eff.Disrupts && !eff.Slows, cut
		r.Replicas, r.PlanReplicas = replicas, ofPlan
	})
	t.cfg.Logf("fault %s: %s %s at %.1fs", label(f), f.Action, actedOn(f, broker), acted.Seconds())
	if len(led) > 0 {
		t.startElection(i, broker, led, began)
	}
	if (eff.Away || eff.Disrupts) && !wasDown && broker >= 0 {
		healed := make(chan struct{})
		t.mu.Lock()
		t.healed[i] = healed
		t.mu.Unlock()
		t.measure(i, "the in-sync replicas' shrink", func(ctx context.Context) { t.measureShrink(ctx, i, broker, began, healed) })
	}
	return began
}

// replicasOn counts the partition replicas broker holds, of every topic
// but the internal ones and of the scenario's (0, 0 when the cluster does not say): a broker
// that holds hundreds of other runs' partitions recovers them all, and
// its election and ISR figures are theirs as much as the plan's.
func (t *Timeline) replicasOn(ctx context.Context, broker int32) (all, ofPlan int) {
	m, err := t.view.metadata(ctx) // every topic
	if err != nil {
		return 0, 0
	}
	plan := map[string]bool{}
	for _, tp := range t.cfg.Topics {
		plan[tp] = true
	}
	for _, td := range m.Topics {
		if td.IsInternal {
			continue // the cluster's own (__consumer_offsets): always there
		}
		for _, p := range td.Partitions {
			if slices.Contains(p.Replicas, broker) {
				all++
				if plan[td.Topic] {
					ofPlan++
				}
			}
		}
	}
	return all, ofPlan
}

// after records that fault i's action was done, and measures what its
// effect calls for.
func (t *Timeline) after(i int, broker int32, eff faults.Effect, began time.Time) {
	t.mu.Lock()
	t.doneAt[i] = time.Since(t.start)
	if broker < 0 {
		t.mu.Unlock()
		return
	}
	switch {
	case eff.Down:
		t.down[broker] = true
	case eff.Back:
		delete(t.down, broker)
	}
	t.mu.Unlock()
	if eff.Continues {
		t.resumed(broker)
	}
	if eff.Back {
		t.measure(i, "the in-sync replicas' recovery", func(ctx context.Context) { t.measureISR(ctx, i, began) })
	}
}

// claim marks broker as acted on by fault i; an action still running on
// it is an error: two at once would undo each other.
func (t *Timeline) claim(i int, broker int32) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if j, ok := t.busy[broker]; ok {
		other := t.results[j]
		return fmt.Errorf("broker %d is still busy with fault %s, begun at %.1f s", broker, resultLabel(other), other.At.Seconds())
	}
	t.busy[broker] = i
	return nil
}

func (t *Timeline) release(broker int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.busy, broker)
}

// heal undoes what the faults left in place, one result row each: first
// what an action said how to undo (Done.Heal), then every broker the
// actor brings back.
func (t *Timeline) heal(ctx context.Context) {
	for i := range t.cfg.Faults {
		t.mu.Lock()
		undo := t.heals[i]
		t.heals[i] = nil
		t.mu.Unlock()
		if undo != nil {
			t.undo(ctx, i, undo)
		}
	}
	healed, err := t.cfg.Actor.Heal(ctx)
	for _, h := range healed {
		t.mu.Lock()
		t.results = append(t.results, Result{Name: "heal", Action: h.Action, Target: fmt.Sprintf("broker %d", h.Broker), Broker: h.Broker, At: time.Since(t.start), Status: StatusDone})
		i := len(t.results) - 1
		delete(t.down, h.Broker)
		t.mu.Unlock()
		t.cfg.Logf("end of sending: %s broker %d", h.Action, h.Broker)
		if k, ok := t.cfg.Kinds[h.Action]; ok && k.Effect.Continues {
			t.resumed(h.Broker)
		}
		began := time.Now()
		t.measure(i, "the in-sync replicas' recovery", func(ctx context.Context) { t.measureISR(ctx, i, began) })
	}
	if err != nil {
		t.mu.Lock()
		t.results = append(t.results, Result{Name: "heal", Action: faults.Heal, Broker: -1, At: time.Since(t.start), Status: StatusFailed, Error: err.Error()})
		t.mu.Unlock()
	}
}

// takeHeal takes the undo of the fault named name, for a heal fault to
// run (the end of the timeline then has nothing to undo for it).
func (t *Timeline) takeHeal(name string) func(context.Context) (string, error) {
	j := t.index(name)
	if j < 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	undo := t.heals[j]
	t.heals[j] = nil
	return undo
}

// undo runs fault i's own heal, as a heal row of the fault's action and
// target.
func (t *Timeline) undo(ctx context.Context, i int, undo func(context.Context) (string, error)) {
	r := t.get(i)
	at := time.Since(t.start)
	t.cfg.Logf("end of sending: undoing %s", resultLabel(r)) // it may take long: the run waits for it
	out, err := undo(ctx)
	row := Result{Name: "heal", Action: r.Action, Target: r.Target, Broker: r.Broker, At: at, Took: time.Since(t.start) - at, Output: out, Status: StatusDone}
	if err != nil {
		row.Status, row.Error = StatusFailed, err.Error()
	}
	t.mu.Lock()
	t.results = append(t.results, row)
	j := len(t.results) - 1
	back := r.Broker >= 0 && t.down[r.Broker]
	if back {
		// A network partition healed: its broker is back.
		delete(t.down, r.Broker)
	}
	t.mu.Unlock()
	if err == nil {
		t.healedLink(i)
	}
	t.cfg.Logf("end of sending: undo %s", resultLabel(r))
	if back && err == nil {
		began := time.Now()
		t.measure(j, "the in-sync replicas' recovery", func(ctx context.Context) { t.measureISR(ctx, j, began) })
	}
}

// actedOn names what an action was done to: the broker it resolved to
// first ("kill broker 2 (leader of orders-0)"), as users grep the log for
// the broker, then the target as the plan gave it.
func actedOn(f faults.Fault, broker int32) string {
	target := f.TargetString()
	if broker < 0 || len(f.Between) == 2 {
		return target
	}
	name := fmt.Sprintf("broker %d", broker)
	if target == name || target == "" {
		return name
	}
	return name + " (" + target + ")"
}
