// Package grouplag watches consumer groups of the system under load (not
// kbench's own): their lag from committed offsets, sampled on an interval
// through a repeat, and how long each took to come back to its level
// before a fault.
package grouplag

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/result"
)

// Watcher samples groups' lag from Start to Stop.
type Watcher struct {
	cl     *kgo.Client
	adm    *kadm.Client
	groups []string
	start  time.Time
	cancel context.CancelFunc
	done   sync.WaitGroup

	mu  sync.Mutex
	out map[string]*result.WatchedGroup
}

// Start begins sampling groups every interval with a client of opts.
func Start(ctx context.Context, opts []kgo.Opt, groups []string, every time.Duration) (*Watcher, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{cl: cl, adm: kadm.NewClient(cl), groups: groups, start: time.Now(), cancel: cancel, out: map[string]*result.WatchedGroup{}}
	for _, g := range groups {
		w.out[g] = &result.WatchedGroup{Group: g}
	}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			w.sample(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return w, nil
}

// sample reads every group's lag once; a group that cannot be read keeps
// its last error and no point.
func (w *Watcher) sample(ctx context.Context) {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	lags, err := w.adm.Lag(sctx, w.groups...)
	at := time.Since(w.start).Seconds()
	if ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, g := range w.groups {
		out := w.out[g]
		if err != nil {
			out.Error = err.Error()
			continue
		}
		l, ok := lags[g]
		switch {
		case !ok:
			out.Error = "not described by the cluster"
			continue
		case errors.Is(l.Error(), kerr.GroupIDNotFound):
			out.Error = "no such group on this cluster: check its name (kbench reads it by the name watch: gives)"
			continue
		case l.Error() != nil:
			out.Error = l.Error().Error()
			continue
		}
		var total int64
		var perr error
		for _, ps := range l.Lag {
			for _, p := range ps {
				if p.Err != nil {
					perr = p.Err
					continue
				}
				total += p.Lag
			}
		}
		if perr != nil && total == 0 {
			out.Error = perr.Error()
			continue
		}
		if l.State == "Dead" && len(l.Lag) == 0 {
			out.Error = "no such group: it has never committed offsets on this cluster"
			continue
		}
		out.Error = ""
		out.Samples = append(out.Samples, result.LagPoint{ElapsedSeconds: at, Records: total})
		out.MaxLag = max(out.MaxLag, total)
	}
}

// Stop takes a last sample and returns each group, in the order given;
// faults (their times, the repeat's) give each group's recoveries.
func (w *Watcher) Stop(faults []result.Fault) []result.WatchedGroup {
	w.cancel()
	w.done.Wait()
	w.sample(context.Background())
	w.cl.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]result.WatchedGroup, 0, len(w.groups))
	for _, g := range w.groups {
		wg := *w.out[g]
		wg.Recoveries = recoveries(wg.Samples, faults, w.start)
		out = append(out, wg)
	}
	return out
}

// recoveries says for each fault that happened how long after it the
// group's lag was back at or under its last level before the fault,
// having risen above it (a fault that raised no lag recovers at once: 0).
func recoveries(samples []result.LagPoint, faults []result.Fault, start time.Time) []result.GroupRecovery {
	var out []result.GroupRecovery
	for _, f := range faults {
		if f.Time.IsZero() {
			continue // never happened
		}
		at := f.Time.Sub(start).Seconds()
		name := f.Action + " " + f.Target
		if f.Name != "" {
			name = f.Name
		}
		before, ok := levelBefore(samples, at)
		if !ok {
			continue
		}
		r := result.GroupRecovery{Fault: name, LagBefore: before, PeakLag: before}
		rose := false
		for _, s := range samples {
			if s.ElapsedSeconds <= at {
				continue
			}
			r.PeakLag = max(r.PeakLag, s.Records)
			if s.Records > before {
				rose = true
				continue
			}
			ms := 0.0
			if rose {
				ms = (s.ElapsedSeconds - at) * 1000
			}
			r.RecoveredMs = &ms
			break
		}
		out = append(out, r)
	}
	return out
}

// levelBefore is the last sample at or before at.
func levelBefore(samples []result.LagPoint, at float64) (int64, bool) {
	lag, ok := int64(0), false
	for _, s := range samples {
		if s.ElapsedSeconds > at {
			break
		}
		lag, ok = s.Records, true
	}
	return lag, ok
}
