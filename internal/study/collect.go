package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
)

// Collect writes a distributed run's document from what its workers left
// on the cluster (kbench collect): the header worker 0 published, and
// every repeat's result slices, merged as worker 0 merges them. It serves
// when worker 0's results folder is out of reach (a Kubernetes pod's disk)
// or worker 0 was lost. bootstrap and props reach the cluster (Java client
// properties, as a plan's cluster.properties). The plan is the plan as
// run, for the results folder; warnings go to log. The document's times
// are the run's (ended_at its last repeat's end), and so should the
// results folder's name be (FolderOptions.Started).
//
// It creates nothing on the cluster (a run id it does not find is not
// created by looking for it), and it skips, naming each by its offset, a
// record no worker of the run wrote or one that is not what its key says.
func Collect(ctx context.Context, bootstrap string, props map[string]string, runID string, log io.Writer) (*result.Document, *plan.Plan, error) {
	if err := coord.CheckID(runID); err != nil {
		return nil, nil, fmt.Errorf("run id %w", err)
	}
	readOnly := map[string]string{}
	for k, v := range props {
		readOnly[k] = v
	}
	// The Java consumer's default (true) would let the readers' own
	// requests create the run's topics on a broker that auto-creates.
	readOnly["allow.auto.create.topics"] = "false"
	b := &build{}
	parsed, err := b.parseConsumer(clientProps(readOnly, nil, bootstrap))
	if err != nil {
		return nil, nil, err
	}
	all, err := coord.ReadResults(ctx, parsed.opts, runID)
	if err != nil {
		return nil, nil, err
	}
	_, results := coord.Topics(runID)
	skip := func(offset int64, what string) {
		fmt.Fprintf(log, "kbench: run %q: skipped the record at offset %d of %s: %s\n", runID, offset, results, what)
	}
	for _, s := range all.Ignored {
		fmt.Fprintf(log, "kbench: run %q: skipped %s\n", runID, s)
	}
	doc, p, err := collectedHeader(runID, all, skip)
	if err != nil {
		return nil, nil, err
	}
	scenarios, err := p.Scenarios()
	if err != nil {
		return nil, nil, err
	}
	workers := 0
	if doc.Plan.Distributed != nil {
		workers = doc.Plan.Distributed.Workers
	}
	if workers <= 0 {
		// A header without the run's worker count: the slices say.
		for _, rec := range all.Records {
			if rec.Name != headerName && rec.Worker < maxCollectedWorkers {
				workers = max(workers, rec.Worker+1)
			}
		}
	}
	merge := newSliceMerger(runID, workers)
	var errs []error
	notRun := 0
	for i := range scenarios {
		rsc := result.Scenario{Index: i + 1, Name: scenarios[i].Name, Params: paramsOf(scenarios[i].Params)}
		for r := 1; r <= p.Repeat; r++ {
			if rep, ok := collectedSearch(all, i+1, r, workers, skip); ok {
				rsc.Repeats = append(rsc.Repeats, rep)
				if rep.Error != "" {
					errs = append(errs, fmt.Errorf("scenario %s, repeat %d: %s", rsc.Name, r, rep.Error))
				}
				continue
			}
			got := collectedSlices(all, sliceName(i+1, r), r, workers, skip)
			if len(got) == 0 {
				notRun++
				continue
			}
			rep, err := merge.repeat(r, got, nil, lost)
			if err != nil {
				return nil, nil, err
			}
			if rep.Error != "" {
				errs = append(errs, fmt.Errorf("scenario %s, repeat %d: %s", rsc.Name, r, rep.Error))
			}
			rsc.Repeats = append(rsc.Repeats, rep)
		}
		if len(rsc.Repeats) == 0 {
			continue
		}
		if err := result.AggregateScenario(&rsc); err != nil {
			errs = append(errs, err)
		}
		rsc.Thresholds = checkThresholds(&scenarios[i], &rsc)
		doc.Plan.Scenarios = append(doc.Plan.Scenarios, rsc)
	}
	if notRun > 0 {
		fmt.Fprintf(log, "kbench: run %q: %d repeat(s) of the plan have no result slice (not run, or the run stopped before them)\n", runID, notRun)
		errs = append(errs, fmt.Errorf("%d repeat(s) were not run", notRun))
	}
	doc.Plan.Distributed = merge.distributed()
	doc.Finish(errors.Join(errs...))
	doc.EndedAt = collectedEnd(doc) // the run's end, not the collect's
	return doc, p, nil
}

// maxCollectedWorkers bounds the worker index a record's key may give
// collect: a damaged key must not make it merge a million empty slices.
const maxCollectedWorkers = 100_000

// collectedHeader is the run's header: the first record worker 0
// published under headerName that holds a run's document with its plan.
// Others are skipped and named.
func collectedHeader(runID string, all *coord.RunResults, skip func(int64, string)) (*result.Document, *plan.Plan, error) {
	seen := 0
	for _, rec := range all.Records {
		if rec.Name != headerName {
			continue
		}
		seen++
		var doc result.Document
		if err := json.Unmarshal(rec.Value, &doc); err != nil {
			skip(rec.Offset, fmt.Sprintf("not a kbench run's header: %v", err))
			continue
		}
		if rec.Worker != 0 || doc.Plan == nil || doc.Plan.PlanYAML == "" {
			skip(rec.Offset, "not a kbench run's header: it holds no plan from worker 0")
			continue
		}
		p, err := plan.Parse("plan.yaml", []byte(doc.Plan.PlanYAML), nil, PlanTypes()...)
		if err != nil {
			skip(rec.Offset, fmt.Sprintf("the plan in this header: %v", err))
			continue
		}
		return &doc, p, nil
	}
	if seen > 0 {
		return nil, nil, fmt.Errorf("run %q: none of the %d header record(s) on its results topic is a kbench run's (each skipped above)", runID, seen)
	}
	return nil, nil, fmt.Errorf("run %q: worker 0 published no header on the results topic (it stopped before its first repeat, or the topic is another run's)", runID)
}

// collectedSlices are the slices of repeat r (named name) by worker: the
// first record of each worker that is its slice of r. Others are skipped
// and named.
func collectedSlices(all *coord.RunResults, name string, r, workers int, skip func(int64, string)) map[int][]byte {
	got := map[int][]byte{}
	for _, rec := range all.Records {
		if rec.Name != name {
			continue
		}
		if _, ok := got[rec.Worker]; ok {
			skip(rec.Offset, fmt.Sprintf("a second result slice %s of worker %d (the first is taken)", name, rec.Worker))
			continue
		}
		if rec.Worker >= workers {
			skip(rec.Offset, fmt.Sprintf("a result slice of worker %d, and the run had %d", rec.Worker, workers))
			continue
		}
		if _, err := decodeSlice(rec.Value, rec.Worker, r); err != nil {
			skip(rec.Offset, fmt.Sprintf("%s of worker %d: %v", name, rec.Worker, err))
			continue
		}
		got[rec.Worker] = rec.Value
	}
	return got
}

// collectedSearch is repeat r of scenario i when it was a distributed
// rate search: worker 0's search as it merged and judged it (its probes'
// slices alone do not say which run answers); false when there is none.
func collectedSearch(all *coord.RunResults, i, r, workers int, skip func(int64, string)) (result.Repeat, bool) {
	data, ok := collectedSlices(all, searchName(i, r), r, workers, skip)[0]
	if !ok {
		return result.Repeat{}, false
	}
	sd, err := decodeSlice(data, 0, r)
	return sd.Repeat, err == nil
}

// collectedEnd is when a collected run ended: its last repeat's end; with
// no repeat collected, its start. Finish stamps the time it is called,
// which for kbench collect is the collect's, hours or days later.
func collectedEnd(doc *result.Document) time.Time {
	end := doc.StartedAt
	for _, sc := range doc.Plan.Scenarios {
		for _, rep := range sc.Repeats {
			if rep.EndedAt.After(end) {
				end = rep.EndedAt
			}
		}
	}
	return end
}
