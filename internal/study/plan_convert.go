package study

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/serde"
	"github.com/kbench/kbench/internal/summary"
	"github.com/kbench/kbench/internal/workload"
	"github.com/kbench/kbench/internal/workload/produce"
)

// encoding is a producing workload's values' schema format ("": plain)
// and the values that did not encode (sent empty), with the first one's
// error.
type encoding struct {
	format   string
	failures int64
	err      error
}

// encodingOf reads a spec's encoding from its values' source: the count
// is the source's, which its clones (one per repeat) share.
func encodingOf(spec workload.Spec) encoding {
	pr, ok := spec.(workload.Producing)
	if !ok {
		return encoding{}
	}
	es, ok := serde.SourceOf(pr.Producer().Values)
	if !ok {
		return encoding{}
	}
	n, err := es.Failures()
	return encoding{format: string(es.Format()), failures: n, err: err}
}

// workloadResult converts one workload's outcome to the result's form.
func workloadResult(out *runner.Outcome, w runner.WorkloadOutcome, enc encoding) (result.Workload, error) {
	rw := result.Workload{Name: w.Name, Type: w.Kind, Config: w.Settings}
	var errs []error
	if w.Err != nil {
		errs = append(errs, w.Err)
	}
	topic := w.ProduceTopic // "" for a consumer: the topics it read, below
	if w.Publish != nil {
		p, err := summary.Producer(w.Publish, 0, 0)
		errs = append(errs, err)
		rw.Producer = p
		switch pr := w.Publish; {
		case pr.Failed > 0:
			errs = append(errs, fmt.Errorf("%d records failed", pr.Failed))
		case pr.Acked == 0 && pr.Unresolved == 0 && w.Err == nil:
			// A repeat that measured nothing is no result (a load of
			// 1 ns stages printed latencies of 0.0 ms and passed).
			errs = append(errs, errors.New("no record sent"))
		}
		rw.Generator = generatorOf(out, w.Publish)
		perRecord(rw.Producer, out, enc.format)
		if enc.failures > 0 {
			errs = append(errs, fmt.Errorf("%d values did not encode as %s (sent empty): %w", enc.failures, enc.format, enc.err))
		}
	}
	if w.EndToEnd != nil {
		_, lat, err := summary.Consumer(w.EndToEnd, 0)
		errs = append(errs, err)
		rw.EndToEnd = lat
	}
	if w.Read != nil {
		c, lat, err := summary.Consumer(w.Read, 0)
		if err == nil && w.Share != nil {
			c.Share, err = summary.Share(w.Share)
		}
		errs = append(errs, err)
		rw.Consumer = c
		if lat != nil && w.Read.FromHeader > 0 {
			// Producers that stamp their send time (send_time_header) give
			// a reader end-to-end latency to the microsecond.
			rw.EndToEnd = lat
		}
		for name := range w.Read.Topics {
			topic = name
		}
		if w.Late && catchingUp(out, w) {
			rw.CatchUp = catchUpOf(out, w)
		}
	}
	if len(w.Sections) > 0 {
		rw.Sections = result.Sections(w.Sections)
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
	// ownShare: kbench limited a short rate when the sender's own lag
	// accounts for at least this share of the records short.
	ownShare = 0.5
)

// generatorOf says whether a producer's numbers measure kbench rather than
// the cluster: kbench saturated the machine's CPUs, or a fixed-rate
// producer fell short of its rate because its sender fell behind its send
// schedule by itself. The send schedule decides: a sender that kept to it,
// or fell behind only while it waited on the cluster (a full buffer, a
// commit), did not limit the rate, whatever the acknowledgements did
// afterwards (a stall, failures, answers after the last send); then the
// cluster limited it.
func generatorOf(out *runner.Outcome, p *produce.ProducerResult) *result.Generator {
	g := &result.Generator{CPUSeconds: out.CPU.Seconds()}
	wall := out.End.Sub(out.Start).Seconds()
	if wall <= 0 {
		return g
	}
	share := g.CPUSeconds / (wall * float64(runtime.NumCPU()))
	g.CPUShare = share
	g.BehindScheduleMaxMs = float64(p.BehindMax.Microseconds()) / 1000
	g.BufferFullSeconds = p.BufferFull.Seconds()
	g.CommitSeconds = p.CommitWait.Seconds()
	if share >= cpuBound {
		g.Reasons = append(g.Reasons, fmt.Sprintf("kbench used %.0f%% of the machine's %d CPUs", 100*share, runtime.NumCPU()))
	}
	if p.TargetRate > 0 {
		judgeRate(g, p)
	}
	for _, pause := range p.Pauses {
		g.Reasons = append(g.Reasons, fmt.Sprintf("kbench itself did not run for %.1f s from %.1f s (the process was stopped, or its host suspended or overloaded): its schedule moved on by the pause, the rates leave it out, records in flight count it in their latency, and %d records intended in this run were not sent",
			pause.Length.Seconds(), pause.At.Sub(p.Start).Seconds(), p.NotSent))
	}
	g.Bound = len(g.Reasons) > 0
	return g
}

// judgeRate decides what held a fixed-rate producer below its rate: the
// records the senders' own lag kept back (their rate times the lag)
// against the records short of the target over the sending time.
func judgeRate(g *result.Generator, p *produce.ProducerResult) {
	elapsed := p.Sending(p.Start).Seconds() // kbench's own pauses left out
	if elapsed <= 0 {
		return
	}
	achieved := float64(p.Acked) / elapsed
	if achieved >= rateShort*p.TargetRate {
		return
	}
	clients := float64(max(p.Clients, 1))
	short := p.TargetRate*elapsed - float64(p.Acked)
	lagMs := float64(p.SenderLag.Microseconds()) / 1000 / clients
	g.SenderBehindMs = lagMs
	kept := p.TargetRate * lagMs / 1000 // records the senders' own lag kept back
	waited := fmt.Sprintf("buffer full %.1f s, commits %.1f s", g.BufferFullSeconds, g.CommitSeconds)
	if kept >= ownShare*short {
		g.RateLimitedBy = "kbench"
		g.RateNote = fmt.Sprintf("reached %.0f of %.0f records/s: the sender fell %.0f ms behind its schedule by itself (besides waiting on the cluster: %s), %.0f of the %.0f records short",
			achieved, p.TargetRate, lagMs, waited, kept, short)
		g.Reasons = append(g.Reasons, g.RateNote)
		return
	}
	g.RateLimitedBy = "cluster"
	g.RateNote = fmt.Sprintf("reached %.0f of %.0f records/s with the sender on its schedule (%.0f ms behind by itself; %s): the cluster limited the rate",
		achieved, p.TargetRate, lagMs, waited)
}

// catchingUp reports whether a late consume workload was catching up: it
// started with records behind it (a backlog) while a producer of a topic
// it reads was still sending. A consumer started after the producers
// ended (start_after a producing phase, or a time past its end) reads
// what an earlier phase wrote: a phase of its own, not a catch-up.
func catchingUp(out *runner.Outcome, w runner.WorkloadOutcome) bool {
	c := w.Read
	if c == nil || c.Backlog == 0 {
		return false
	}
	for _, o := range out.Workloads {
		p := o.Publish
		if p == nil || o.Name == w.Name {
			continue
		}
		if _, reads := c.Topics[o.ProduceTopic]; !reads && len(c.Topics) > 0 {
			continue
		}
		if !p.Start.After(c.Start) && p.End.After(c.Start) {
			return true
		}
	}
	return false
}

// catchUpOf summarises a late consumer's catch-up read, with the
// producers' latency over it from their interval series.
func catchUpOf(out *runner.Outcome, w runner.WorkloadOutcome) *result.CatchUp {
	c := w.Read
	cu := &result.CatchUp{StartedAfterSeconds: c.Start.Sub(out.Start).Seconds(),
		Partitions: c.Drain.Partitions, PartitionsCaughtUp: c.Drain.CaughtUp,
		LastDrainSeconds: c.Drain.Last.Seconds(), LastRecords: c.Drain.LastRecords}
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
		if o.Publish == nil {
			continue
		}
		for _, iv := range o.Publish.Intervals {
			end := o.Publish.Start.Add(iv.Elapsed)
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

// perRecord fills a producer's per-record costs: its format, bytes per
// record (values, framing included) and this process's CPU per record
// acknowledged, over every producer of the repeat (readers' decoding is
// counted too when they run beside it).
func perRecord(p *result.Producer, out *runner.Outcome, format string) {
	if p == nil || p.Records == 0 {
		return
	}
	p.Format = format
	if p.Format == "" {
		p.Format = "plain"
	}
	p.BytesPerRecord = float64(p.Bytes) / float64(p.Records)
	var acked int64
	for _, o := range out.Workloads {
		if o.Publish != nil {
			acked += o.Publish.Acked
		}
	}
	if acked > 0 {
		p.CPUMicrosPerRecord = float64(out.CPU.Microseconds()) / float64(acked)
	}
}
