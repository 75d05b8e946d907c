// Package brokercost measures what the broker processes of a local
// cluster spend during a repeat: CPU (user and system), resident memory
// and storage reads and writes, sampled from /proc on an interval and
// summed across a broker's processes when the plan restarts it.
package brokercost

import (
	"sort"
	"sync"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// Sampler follows a cluster's brokers from Start to Stop.
type Sampler struct {
	root  string
	pids  func() map[int]int
	now   func() time.Time
	start time.Time
	every time.Duration
	stop  chan struct{}
	done  sync.WaitGroup
	// lastAt is when the last round of readings was taken, in seconds
	// after start: where a broker first seen in this round counts from.
	lastAt float64

	mu      sync.Mutex
	brokers map[int]*broker
}

// broker is one broker's running totals.
type broker struct {
	last             procSample // the last reading of its current process
	user, system     int64      // ticks used since Start
	read, write      int64
	ioKnown          bool
	processes        int
	rssPeak, rssSum  int64
	rssN             int64
	cores            *result.Ratios // CPU seconds per second, a step per interval
	lastAt           float64        // the last reading's time, seconds after start
	ticksAtLastPoint int64
}

// Start begins sampling the brokers pids returns (broker id → pid of its
// process now; a broker down is left out) every interval.
func Start(pids func() map[int]int, every time.Duration) *Sampler {
	return start("/proc", pids, every, time.Now)
}

func start(root string, pids func() map[int]int, every time.Duration, now func() time.Time) *Sampler {
	s := &Sampler{root: root, pids: pids, now: now, start: now(), every: every, stop: make(chan struct{}), brokers: map[int]*broker{}}
	s.sample(true)
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.sample(false)
			}
		}
	}()
	return s
}

// sample reads every broker once. The first reading of the broker's
// first process is the baseline; a process that appears later (the plan
// restarted the broker) counts from its own start.
func (s *Sampler) sample(baseline bool) {
	at := s.now().Sub(s.start).Seconds()
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.lastAt
	s.lastAt = at
	for id, pid := range s.pids() {
		cur, err := readProc(s.root, pid)
		if err != nil {
			continue // gone between the listing and the read
		}
		b := s.brokers[id]
		if b == nil {
			b = &broker{ioKnown: true, cores: result.NewRatios(s.start, s.every), lastAt: from}
			s.brokers[id] = b
		}
		if b.processes > 0 && b.last.pid != pid {
			// A new process (a restart) started after the last round,
			// which did not list it: the steps between are the outage.
			b.lastAt = max(b.lastAt, from)
		}
		switch {
		case b.processes == 0 && baseline:
			// Counted from here on.
		case b.processes == 0 || b.last.pid != pid:
			// A process started during the repeat: all of it is the repeat's.
			b.user += cur.userTicks
			b.system += cur.systemTicks
			b.read += cur.readBytes
			b.write += cur.writeBytes
		default:
			b.user += cur.userTicks - b.last.userTicks
			b.system += cur.systemTicks - b.last.systemTicks
			b.read += cur.readBytes - b.last.readBytes
			b.write += cur.writeBytes - b.last.writeBytes
		}
		if b.processes == 0 || b.last.pid != pid {
			b.processes++
		}
		b.ioKnown = b.ioKnown && cur.ioKnown
		b.last = cur
		if cur.rssKnow {
			b.rssPeak = max(b.rssPeak, cur.rssBytes)
			b.rssSum += cur.rssBytes
			b.rssN++
		}
		ticks := b.user + b.system
		if !baseline {
			b.cores.Add(b.lastAt, at, float64(ticks-b.ticksAtLastPoint)/clockTicks, at-b.lastAt)
		}
		b.ticksAtLastPoint, b.lastAt = ticks, at
	}
}

// Stop takes a last sample and returns each broker's totals, by id.
func (s *Sampler) Stop() []result.BrokerCost {
	close(s.stop)
	s.done.Wait()
	s.sample(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]result.BrokerCost, 0, len(s.brokers))
	for id, b := range s.brokers {
		c := result.BrokerCost{
			ID: id, UserSeconds: float64(b.user) / clockTicks, SystemSeconds: float64(b.system) / clockTicks,
			RSSPeakBytes: b.rssPeak, Processes: b.processes, CPUCores: b.cores.Steps(result.Cores, 2),
		}
		c.CPUSeconds = c.UserSeconds + c.SystemSeconds
		if b.rssN > 0 {
			c.RSSMeanBytes = b.rssSum / b.rssN
		}
		if b.ioKnown {
			r, w := b.read, b.write
			c.DiskReadBytes, c.DiskWriteBytes = &r, &w
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
