package result

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// MergeRepeats merges the slices of one repeat that distributed workers
// ran (reps[i] is worker i's: a share of the producer clients, records
// and rate, consumers in one group) into the repeat a single process
// running them all would have written.
//
// Workloads are matched by name, in the order they first appear. Counts
// add up; latencies merge exactly from their histograms (MergeLatencies)
// and interval series on their absolute start (MergeSeries); rates are
// computed again from the merged counts over the union of the workers'
// sending (or reading) time, so they keep their meaning. Each workload
// keeps every worker's own figures in Workload.Workers, and a field that
// cannot be merged exactly says so in Workload.Inexact (or
// Repeat.Inexact) rather than passing for exact.
//
// The status is failed when a slice failed or did not run (skipped while
// others ran), its error naming the worker; interrupted when one was. An
// error is returned when the slices are not of one repeat: another repeat
// index, or one workload of two types.
func MergeRepeats(reps []Repeat) (Repeat, error) {
	if len(reps) == 0 {
		return Repeat{}, errors.New("merge repeats: no slice to merge")
	}
	out := Repeat{Index: reps[0].Index, Workers: len(reps)}
	for i, s := range reps {
		if s.Index != out.Index {
			return Repeat{}, fmt.Errorf("merge repeats: worker %d ran repeat %d, worker 0 repeat %d", i, s.Index, out.Index)
		}
		out.StartedAt = earliest(out.StartedAt, s.StartedAt)
		if s.EndedAt.After(out.EndedAt) {
			out.EndedAt = s.EndedAt
		}
		// The workloads start when every worker's topics are ready.
		out.SetupSeconds = max(out.SetupSeconds, s.SetupSeconds)
	}
	out.Status, out.Error = mergeStatus(reps)

	var order []string
	parts := map[string][]workloadPart{}
	for i := range reps {
		for j := range reps[i].Workloads {
			w := &reps[i].Workloads[j]
			if _, ok := parts[w.Name]; !ok {
				order = append(order, w.Name)
			}
			parts[w.Name] = append(parts[w.Name], workloadPart{worker: i, w: w})
		}
	}
	for _, name := range order {
		w, err := mergeWorkload(parts[name])
		if err != nil {
			return Repeat{}, fmt.Errorf("merge repeats: workload %s: %w", name, err)
		}
		out.Workloads = append(out.Workloads, w)
	}
	cpuPerRecord(&out, reps)
	var notes inexact
	out.Faults = mergeFaults(reps, &notes)
	out.Verification = mergeVerifications(reps, &notes)
	out.Process = mergeProcess(reps)
	out.Inexact = notes
	return out, nil
}

// mergeProcess adds the workers' CPU and goroutines (every process's
// count, at its own peak: an upper bound of the run's at any moment) and
// keeps the largest resident memory of one worker (each is its own
// machine's or container's). nil when no slice measured its process.
func mergeProcess(reps []Repeat) *Process {
	var out *Process
	for _, r := range reps {
		if r.Process == nil {
			continue
		}
		if out == nil {
			out = &Process{}
		}
		out.Add(r.Process)
	}
	return out
}

// workloadPart is one worker's slice of a workload.
type workloadPart struct {
	worker int
	w      *Workload
}

// inexact collects the notes of Workload.Inexact and Repeat.Inexact.
type inexact []string

func (n *inexact) add(format string, args ...any) { *n = append(*n, fmt.Sprintf(format, args...)) }

// mergeStatus is the merged repeat's status and error: every slice that did
// not end ok is named.
func mergeStatus(reps []Repeat) (string, string) {
	var failed, skipped, interrupted int
	var errs []string
	for i, s := range reps {
		if s.Status == StatusOK {
			continue
		}
		switch s.Status {
		case StatusFailed:
			failed++
		case StatusSkipped:
			skipped++
		case StatusInterrupted:
			interrupted++
		default:
			failed++ // an unknown status is no success
		}
		msg := s.Error
		if msg == "" {
			msg = s.Status
		}
		errs = append(errs, fmt.Sprintf("worker %d: %s", i, msg))
	}
	switch {
	case len(errs) == 0:
		return StatusOK, ""
	case skipped == len(reps):
		return StatusSkipped, strings.Join(errs, "\n")
	case failed > 0 || skipped > 0:
		// A worker that did not run leaves the merge short of its share.
		return StatusFailed, strings.Join(errs, "\n")
	default:
		return StatusInterrupted, strings.Join(errs, "\n")
	}
}

// mergeWorkload merges one workload's slices.
func mergeWorkload(ps []workloadPart) (Workload, error) {
	first := ps[0]
	out := Workload{Name: first.w.Name, Type: first.w.Type}
	var notes inexact
	var prods, steadies []*Producer
	var prodWorkers []int
	var cons []*Consumer
	var consWorkers []int
	var e2e []*Latency
	var gens []*Generator
	var genWorkers, genClients []int
	var catchUps []*CatchUp
	var noSteady []int
	var sections []Sections
	var configFrom, configDiffer, searchFrom, searchers int
	for _, p := range ps {
		w := p.w
		if w.Type != out.Type {
			return Workload{}, fmt.Errorf("worker %d's is of type %s, worker %d's of type %s: not slices of one plan", p.worker, w.Type, first.worker, out.Type)
		}
		out.Topic = mergeTopic(out.Topic, w.Topic, p.worker, &notes)
		if out.Config == nil && w.Config != nil {
			out.Config, configFrom = w.Config, p.worker
		} else if w.Config != nil && !maps.Equal(out.Config, w.Config) {
			configDiffer++
		}
		if w.Producer != nil {
			prods, prodWorkers = append(prods, w.Producer), append(prodWorkers, p.worker)
			if w.Producer.SteadyState != nil {
				steadies = append(steadies, w.Producer)
			} else {
				noSteady = append(noSteady, p.worker)
			}
		}
		if w.Consumer != nil {
			cons, consWorkers = append(cons, w.Consumer), append(consWorkers, p.worker)
		}
		if w.EndToEnd != nil {
			e2e = append(e2e, w.EndToEnd)
		}
		if w.Generator != nil {
			gens, genWorkers = append(gens, w.Generator), append(genWorkers, p.worker)
			clients := 1
			if w.Producer != nil {
				clients = max(w.Producer.Clients, 1)
			}
			genClients = append(genClients, clients)
		}
		if w.CatchUp != nil {
			catchUps = append(catchUps, w.CatchUp)
		}
		if w.MaxRate != nil {
			if out.MaxRate == nil {
				out.MaxRate, searchFrom = w.MaxRate, p.worker
			} else {
				searchers++
			}
		}
		if w.Sections != nil {
			sections = append(sections, w.Sections)
		}
		out.Workers = append(out.Workers, workerSlice(p))
	}
	if configDiffer > 0 {
		notes.add("config: worker %d's; %d other workers' differ", configFrom, configDiffer)
	}
	if searchers > 0 {
		notes.add("max_rate: worker %d's search only; %d other workers searched too", searchFrom, searchers)
	}
	var err error
	if len(prods) > 0 {
		if out.Producer, err = mergeProducers(prods, prodWorkers, &notes); err != nil {
			return Workload{}, fmt.Errorf("producer: %w", err)
		}
		if len(steadies) > 0 {
			if out.Producer.SteadyState, err = mergeSteady(steadies, &notes); err != nil {
				return Workload{}, fmt.Errorf("producer steady state: %w", err)
			}
			if len(noSteady) > 0 {
				notes.add("producer.steady_state: without workers %v, which reached no steady state", noSteady)
			}
		}
	}
	if len(cons) > 0 {
		if out.Consumer, err = mergeConsumers(cons, consWorkers, &notes); err != nil {
			return Workload{}, fmt.Errorf("consumer: %w", err)
		}
	}
	if len(e2e) > 0 {
		if out.EndToEnd, err = mergeEndToEnd(e2e); err != nil {
			return Workload{}, fmt.Errorf("end-to-end latency: %w", err)
		}
	}
	if len(gens) > 0 {
		out.Generator = mergeGenerators(gens, genWorkers, genClients, &notes)
	}
	if len(catchUps) > 0 {
		out.CatchUp = mergeCatchUps(catchUps, &notes)
	}
	if out.Sections, err = mergeSections(sections, "worker", &notes); err != nil {
		return Workload{}, err
	}
	if err := settleWorkload(&out); err != nil {
		return Workload{}, err
	}
	out.Inexact = notes
	return out, nil
}

// mergeTopic keeps the first topic seen; another topic is noted.
func mergeTopic(have, t *Topic, worker int, notes *inexact) *Topic {
	switch {
	case have == nil:
		return t
	case t != nil && *t != *have:
		notes.add("topic: the first worker's %s (%d partitions); worker %d saw %s (%d partitions)", have.Name, have.Partitions, worker, t.Name, t.Partitions)
	}
	return have
}

// workerSlice is a worker's own figures of a workload.
func workerSlice(p workloadPart) WorkerSlice {
	w := p.w
	s := WorkerSlice{Worker: p.worker}
	if pr := w.Producer; pr != nil {
		s.Records, s.RecordsPerSec = pr.Records, pr.RecordsPerSec
		s.CPUSeconds = pr.CPUSeconds
		s.Publish = slicePercentiles(&pr.Latency)
	}
	s.EndToEnd = slicePercentiles(w.EndToEnd)
	if c := w.Consumer; c != nil {
		s.ReadRecords, s.ReadRecordsPerSec = c.Records, c.RecordsPerSec
		s.CPUSeconds = max(s.CPUSeconds, c.CPUSeconds)
	}
	if g := w.Generator; g != nil {
		s.CPUSeconds = max(s.CPUSeconds, g.CPUSeconds)
		s.GeneratorBound = g.Bound
		s.GeneratorReasons = g.Reasons
	}
	return s
}

// mergeEndToEnd merges end-to-end latencies, with their source and
// backlog (Latency.Add).
func mergeEndToEnd(ls []*Latency) (*Latency, error) {
	out := &Latency{}
	for _, l := range ls {
		if err := out.Add(l); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// cpuPerRecord sets every merged producer's CPU per record: as the runner
// does, the process CPU time over the records every producer of the
// repeat acknowledged, here summed over the workers' processes.
func cpuPerRecord(out *Repeat, reps []Repeat) {
	var cpu float64
	for _, s := range reps {
		var c float64 // the process's: every workload's generator has it
		for _, w := range s.Workloads {
			if w.Generator != nil {
				c = max(c, w.Generator.CPUSeconds)
			}
		}
		cpu += c
	}
	var acked int64
	for _, w := range out.Workloads {
		if w.Producer != nil {
			acked += w.Producer.Records
		}
	}
	for _, w := range out.Workloads {
		if p := w.Producer; p != nil && p.CPUMicrosPerRecord > 0 && acked > 0 {
			p.CPUMicrosPerRecord = cpu * 1e6 / float64(acked)
		}
	}
}

// mergeFaults keeps the faults of the first worker that ran any: one
// worker runs a plan's faults.
func mergeFaults(reps []Repeat, notes *inexact) []Fault {
	var out []Fault
	from, others := -1, 0
	for i, s := range reps {
		switch {
		case len(s.Faults) == 0:
		case from >= 0:
			others++
		default:
			out, from = s.Faults, i
		}
	}
	if others > 0 {
		notes.add("faults: worker %d's; %d other workers ran faults too", from, others)
	} else if from >= 0 && len(reps) > 1 {
		notes.add("faults: unavailability and recovery as worker %d's producers saw them (it ran the faults); the other workers' producers are not in them", from)
	}
	return out
}

// mergeVerifications adds up each verified workload's checks over the
// workers, each of which read back the records its own producers
// acknowledged.
// ForeignNote says that a verification's read-back found records of
// another writer.
func ForeignNote(n int64) string {
	return fmt.Sprintf("%d records of another writer were in the topic: another run (or a producer) wrote it at the same time or before, and its figures may be mixed with this run's", n)
}

// withoutNote is note (joined by joinNonEmpty) without part.
func withoutNote(note, part string) string {
	var keep []string
	for _, p := range strings.Split(note, "; ") {
		if p != part && p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "; ")
}

// lostSlice says s stands in for a worker that sent no slice.
func lostSlice(s Repeat) bool { return len(s.Workloads) == 0 && s.Status == StatusFailed }

func mergeVerifications(reps []Repeat, notes *inexact) []Verification {
	var out []Verification
	at := map[string]int{}
	added := map[string]bool{}
	firstRead := map[string]int64{} // the first worker's own records read
	for i, s := range reps {
		for _, v := range s.Verification {
			own := VerifiedWorker{Worker: i, Acked: v.Acked, Lost: v.Lost, Duplicated: v.Duplicated, OutOfOrder: v.OutOfOrder,
				Unacknowledged: v.Unacknowledged, Passed: v.Passed, Error: v.Error, FromPieces: lostSlice(s)}
			j, ok := at[v.Workload]
			if !ok {
				at[v.Workload] = len(out)
				firstRead[v.Workload] = v.Read
				v.Partitions = slices.Clone(v.Partitions)
				v.Unseen = slices.Clone(v.Unseen)
				if v.Error != "" {
					v.Error = fmt.Sprintf("worker %d: %s", i, v.Error)
				}
				if len(reps) > 1 {
					v.Workers = []VerifiedWorker{own}
				}
				out = append(out, v)
				continue
			}
			if !added[v.Workload] {
				added[v.Workload] = true
				notes.add("verification of %s: the workers' checks added up, each of the records its own producers acknowledged (verification.workers); foreign: the first worker's less the other workers' records it read; unseen summed sample by sample, each worker sampling on its own clock", v.Workload)
			}
			m := &out[j]
			m.Workers = append(m.Workers, own)
			m.Acked += v.Acked
			m.Read += v.Read
			m.Lost += v.Lost
			m.Duplicated += v.Duplicated
			m.OutOfOrder += v.OutOfOrder
			m.Unacknowledged += v.Unacknowledged
			m.Aborted += v.Aborted
			m.AbortedRead += v.AbortedRead
			m.Passed = m.Passed && v.Passed
			// Each worker took the others' records for another writer's.
			m.Note = joinNonEmpty(withoutNote(m.Note, ForeignNote(m.Foreign)), withoutNote(v.Note, ForeignNote(v.Foreign)))
			if v.Error != "" {
				m.Error = joinNonEmpty(m.Error, fmt.Sprintf("worker %d: %s", i, v.Error))
			}
			m.Partitions = mergeVerifiedPartitions(m.Partitions, v.Partitions)
			m.StartedAt = earliest(m.StartedAt, v.StartedAt)
			for k, u := range v.Unseen {
				if k < len(m.Unseen) {
					m.Unseen[k].Unseen += u.Unseen
					m.Unseen[k].Acked += u.Acked
				} else {
					m.Unseen = append(m.Unseen, u)
				}
			}
		}
	}
	for j := range out {
		m := &out[j]
		if len(m.Workers) > 1 {
			// Each worker counts the others' records as foreign: what no
			// worker wrote is the first's foreign less what the others read.
			m.Foreign = max(m.Foreign-(m.Read-firstRead[m.Workload]), 0)
			if m.Foreign > 0 {
				m.Note = joinNonEmpty(ForeignNote(m.Foreign), m.Note)
			}
		}
		var fromPieces []int
		for k, s := range reps {
			if !lostSlice(s) {
				continue
			}
			if slices.ContainsFunc(m.Workers, func(w VerifiedWorker) bool { return w.Worker == k && w.FromPieces }) {
				fromPieces = append(fromPieces, k)
			} else {
				m.Unchecked = append(m.Unchecked, k)
			}
		}
		if len(fromPieces) > 0 {
			m.Note = joinNonEmpty(m.Note, fmt.Sprintf("workers %v were lost: worker 0 checked the records they acknowledged up to their last ledger piece, a second or less before they stopped", fromPieces))
		}
		if len(m.Unchecked) > 0 {
			m.Passed = false
			m.Note = joinNonEmpty(m.Note, fmt.Sprintf("workers %v sent no result slice (lost) and shared no ledger: the records their producers acknowledged were not checked", m.Unchecked))
		}
	}
	return out
}

// mergeVerifiedPartitions adds b's partitions into a: counts add up, and
// the first few offsets of each problem are the lowest of both.
func mergeVerifiedPartitions(a, b []VerificationPartition) []VerificationPartition {
	for _, p := range b {
		i := slices.IndexFunc(a, func(q VerificationPartition) bool { return q.Partition == p.Partition })
		if i < 0 {
			a = append(a, p)
			continue
		}
		q := &a[i]
		q.Acked += p.Acked
		q.Lost += p.Lost
		q.Duplicated += p.Duplicated
		q.OutOfOrder += p.OutOfOrder
		q.Unacknowledged += p.Unacknowledged
		q.FirstLost = firstOffsets(q.FirstLost, p.FirstLost)
		q.FirstDuplicated = firstOffsets(q.FirstDuplicated, p.FirstDuplicated)
		q.FirstOutOfOrder = firstOffsets(q.FirstOutOfOrder, p.FirstOutOfOrder)
		q.FirstUnacknowledged = firstOffsets(q.FirstUnacknowledged, p.FirstUnacknowledged)
	}
	return a
}

// firstOffsets is the lowest offsets of a and b, as many as the longer
// list kept.
func firstOffsets(a, b []int64) []int64 {
	n := max(len(a), len(b))
	out := slices.Concat(a, b)
	slices.Sort(out)
	out = slices.Compact(out)
	return out[:min(n, len(out))]
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "" || a == b:
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// earliest is the earlier of two times, a zero one left out.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// addCounts adds b's counts into a (nil when both are empty).
func addCounts(a, b map[string]int64) map[string]int64 {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = make(map[string]int64, len(b))
	}
	for k, v := range b {
		a[k] += v
	}
	return a
}

// seconds is s seconds as a duration, to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }
