// Package gctune sets the garbage collector's percent (GOGC) from what
// collecting costs while kbench runs. A client at full speed allocates a
// slab of records per batch, and at Go's default GOGC=100 collecting them
// cost consumer-perf-test about a third of its CPU: kbench spends memory
// instead (High, 400). A client at a modest rate allocates little, and
// the same headroom is then memory held for nothing (a 20k records/s soak
// kept a 32 MB heap goal over 6 MB live): while collecting costs under
// LowShare of kbench's CPU, the percent halves, down to Low (Go's 100);
// past HighShare it doubles again, up to High.
package gctune

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"time"
)

// The percent's range and the GC's share of kbench's CPU that moves it.
const (
	Low       = 100
	High      = 400
	LowShare  = 0.01
	HighShare = 0.04
	// minCPU is the CPU an interval must have used to judge by: an idle
	// process's shares are noise.
	minCPU = 0.02
	// every is how often the percent is judged: a plan at a modest rate
	// reaches 400's heap goal in a few seconds, and a 20k records/s soak
	// peaked at 73.7 MB resident judged every 5 s.
	every = time.Second
)

// Tuner decides the percent from the readings it is given.
type Tuner struct {
	Percent     int
	gc, cpu     float64
	initialised bool
}

// Step takes the process's GC and total CPU seconds so far and returns
// the percent for the next interval, and whether it changed.
func (t *Tuner) Step(gcSeconds, cpuSeconds float64) (int, bool) {
	if !t.initialised {
		t.gc, t.cpu, t.initialised = gcSeconds, cpuSeconds, true
		return t.Percent, false
	}
	dgc, dcpu := gcSeconds-t.gc, cpuSeconds-t.cpu
	if dcpu < minCPU {
		return t.Percent, false // idle: keep the readings, judge a busier interval
	}
	t.gc, t.cpu = gcSeconds, cpuSeconds
	old := t.Percent
	switch share := dgc / dcpu; {
	case share < LowShare:
		t.Percent = max(Low, t.Percent/2)
	case share > HighShare:
		t.Percent = min(High, t.Percent*2)
	}
	return t.Percent, t.Percent != old
}

// fixed ends the tuning (Fix).
var fixed atomic.Bool

// Fix sets the percent and ends the tuning: what measures nothing (a dry
// run) keeps Go's collector as it is.
func Fix(percent int) {
	fixed.Store(true)
	debug.SetGCPercent(percent)
}

// Start sets the percent to High and adjusts it every second until
// ctx ends or Fix.
func Start(ctx context.Context) {
	t := &Tuner{Percent: High}
	debug.SetGCPercent(High)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		sample := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if fixed.Load() {
				return
			}
			metrics.Read(sample)
			cpu, ok := processCPU()
			if !ok || sample[0].Value.Kind() != metrics.KindFloat64 {
				continue
			}
			if p, changed := t.Step(sample[0].Value.Float64(), cpu); changed && !fixed.Load() {
				debug.SetGCPercent(p)
			}
		}
	}()
}

// processCPU is the process's user and system CPU seconds so far.
func processCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime), true
}
