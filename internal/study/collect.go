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
func Collect(ctx context.Context, bootstrap string, props map[string]string, runID string, log io.Writer) (*result.Document, *plan.Plan, error) {
	b := &build{}
	parsed, err := b.parseConsumer(clientProps(props, nil, bootstrap))
	if err != nil {
		return nil, nil, err
	}
	all, err := coord.ReadResults(ctx, parsed.opts, runID)
	if err != nil {
		return nil, nil, err
	}
	header, ok := all[headerName][0]
	if !ok {
		return nil, nil, fmt.Errorf("run %q: worker 0 published no header on the results topic (it stopped before its first repeat, or the topic is another run's)", runID)
	}
	var doc result.Document
	if err := json.Unmarshal(header, &doc); err != nil || doc.Plan == nil {
		return nil, nil, fmt.Errorf("run %q: its header is not a kbench run's: %v", runID, err)
	}
	p, err := plan.Parse("plan.yaml", []byte(doc.Plan.PlanYAML), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("run %q: the plan in its header: %w", runID, err)
	}
	scenarios, err := p.Scenarios()
	if err != nil {
		return nil, nil, err
	}
	workers := 0
	if doc.Plan.Distributed != nil {
		workers = doc.Plan.Distributed.Workers
	}
	for name, bySlice := range all {
		if name != headerName {
			for k := range bySlice {
				workers = max(workers, k+1)
			}
		}
	}
	merge := newSliceMerger(runID, workers)
	var errs []error
	notRun := 0
	for i := range scenarios {
		rsc := result.Scenario{Index: i + 1, Name: scenarios[i].Name, Params: paramsOf(scenarios[i].Params)}
		for r := 1; r <= p.Repeat; r++ {
			got := all[sliceName(i+1, r)]
			if len(got) == 0 {
				notRun++
				continue
			}
			rep, err := merge.repeat(r, got, lostSlice)
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
	doc.EndedAt = collectedEnd(&doc) // the run's end, not the collect's
	return &doc, p, nil
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
