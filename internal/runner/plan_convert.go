package runner

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload"
)

// workloadResult converts one workload's outcome to the result's form.
func workloadResult(out *Outcome, w WorkloadOutcome) (result.Workload, error) {
	rw := result.Workload{Name: w.Name, Type: string(w.Kind), Config: w.Settings}
	var errs []error
	if w.Err != nil {
		errs = append(errs, w.Err)
	}
	topic := ""
	if w.Producer != nil {
		p, err := w.Producer.Summary(0, 0)
		errs = append(errs, err)
		rw.Producer = p
		if w.Producer.Failed > 0 {
			errs = append(errs, fmt.Errorf("%d records failed", w.Producer.Failed))
		}
		rw.Generator = generatorOf(out, w.Producer)
	}
	if w.Consumer != nil {
		c, lat, err := w.Consumer.Summary(0)
		errs = append(errs, err)
		if w.Kind == EndToEnd {
			rw.EndToEnd = lat
		} else {
			rw.Consumer = c
		}
		for name := range w.Consumer.Topics {
			topic = name
		}
		if w.Kind == Consume && w.Late {
			rw.CatchUp = catchUpOf(out, w)
		}
	}
	for _, t := range out.Topics {
		if t.Name == topic || topic == "" && len(out.Topics) == 1 {
			rw.Topic = &result.Topic{Name: t.Name, Partitions: t.Partitions, ReplicationFactor: t.ReplicationFactor}
		}
	}
	return rw, errors.Join(errs...)
}

// Thresholds of generatorOf.
const (
	// cpuBound: kbench used this share of every CPU of the machine.
	cpuBound = 0.90
	// rateShort: a fixed-rate producer reached less than this share of its
	// target.
	rateShort = 0.95
)

// generatorOf says whether a producer's numbers measure kbench rather than
// the cluster: kbench saturated the machine's CPUs, or a fixed-rate
// producer fell short of its rate without the cluster pushing back (its
// buffer was not full: the client, not the brokers, was slow).
func generatorOf(out *Outcome, p *workload.ProducerResult) *result.Generator {
	g := &result.Generator{CPUSeconds: out.CPU.Seconds()}
	wall := out.End.Sub(out.Start).Seconds()
	if wall <= 0 {
		return g
	}
	share := g.CPUSeconds / (wall * float64(runtime.NumCPU()))
	g.CPUShare = share
	g.BehindScheduleMaxMs = float64(p.BehindMax.Microseconds()) / 1000
	g.BufferFullSeconds = p.BufferFull.Seconds()
	if share >= cpuBound {
		g.Reasons = append(g.Reasons, fmt.Sprintf("kbench used %.0f%% of the machine's %d CPUs", 100*share, runtime.NumCPU()))
	}
	if p.TargetRate > 0 {
		elapsed := p.End.Sub(p.Start).Seconds()
		achieved := 0.0
		if elapsed > 0 {
			achieved = float64(p.Acked) / elapsed
		}
		blockedShare := p.BufferFull.Seconds() / elapsed / float64(max(p.Clients, 1))
		if achieved < rateShort*p.TargetRate && blockedShare < 0.5 {
			g.Reasons = append(g.Reasons, fmt.Sprintf("reached %.0f of %.0f records/s with the client's buffer full only %.0f%% of the time: the sender, not the cluster, fell behind (up to %.0f ms)",
				achieved, p.TargetRate, 100*blockedShare, g.BehindScheduleMaxMs))
		}
	}
	g.Bound = len(g.Reasons) > 0
	return g
}

// catchUpOf summarises a late consumer's catch-up read, with the
// producers' latency over it from their interval series.
func catchUpOf(out *Outcome, w WorkloadOutcome) *result.CatchUp {
	c := w.Consumer
	cu := &result.CatchUp{StartedAfterSeconds: c.Start.Sub(out.Start).Seconds()}
	if c.CaughtUp <= 0 {
		cu.Records = c.Records
		return cu
	}
	cu.Records = c.CaughtUpRecords
	cu.DrainSeconds = c.CaughtUp.Seconds()
	cu.RecordsPerSec = float64(cu.Records) / cu.DrainSeconds
	from, to := c.Start, c.Start.Add(c.CaughtUp)
	var sum, n int64
	var maxUs int64
	for _, o := range out.Workloads {
		if o.Producer == nil {
			continue
		}
		for _, iv := range o.Producer.Intervals {
			end := o.Producer.Start.Add(iv.Elapsed)
			if end.Before(from) || end.Add(-iv.Length).After(to) {
				continue
			}
			sum += iv.LatSumUs
			n += iv.LatCount
			maxUs = max(maxUs, iv.LatMaxUs)
		}
	}
	if n > 0 {
		cu.ProducerAvgLatencyMs = float64(sum) / float64(n) / 1000
	}
	cu.ProducerMaxLatencyMs = float64(maxUs) / 1000
	return cu
}
