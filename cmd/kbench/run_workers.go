package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/coord"
	"github.com/kbench/kbench/internal/live"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/userr"
)

// Environment variables a distributed worker reads when its flags are not
// given: a Kubernetes Indexed Job sets the first in each pod, and kbench's
// manifest sets the second from the Job's name.
const (
	envWorkerIndex = "JOB_COMPLETION_INDEX"
	envRunID       = "KBENCH_RUN_ID"
)

// workerFlags are kbench run's flags for a distributed run.
type workerFlags struct {
	workers     int
	given       bool   // --workers was given (0 is a mistake, not "alone")
	index       string // "": from JOB_COMPLETION_INDEX
	runID       string // "": from KBENCH_RUN_ID
	keepControl bool
}

// distributed resolves the flags (and the environment) into this
// worker's place in the run, or nil for a run of one process. planPath
// and sets identify the plan every worker must run.
func (f workerFlags) distributed(getenv func(string) string, planPath string, sets []string) (*study.Distributed, error) {
	if !f.given && f.index == "" && f.runID == "" && !f.keepControl {
		return nil, nil
	}
	switch {
	case !f.given:
		return nil, userr.Errorf("--worker-index, --run-id and --keep-control need --workers N: how many kbench processes run the plan")
	case f.workers < 1:
		return nil, userr.Errorf("--workers %d: give how many kbench processes run the plan, 1 or more (without --workers the plan runs in this process alone)", f.workers)
	}
	index, from := f.index, "--worker-index"
	if index == "" {
		index, from = getenv(envWorkerIndex), envWorkerIndex
	}
	if index == "" {
		return nil, userr.Errorf("--workers %d: give this worker's index with --worker-index I (0 to %d), or set %s as a Kubernetes Indexed Job does", f.workers, f.workers-1, envWorkerIndex)
	}
	i, err := strconv.Atoi(strings.TrimSpace(index))
	if err != nil {
		return nil, userr.Errorf("%s %q: not a whole number; give this worker's index, 0 to %d", from, index, f.workers-1)
	}
	if i < 0 || i >= f.workers {
		return nil, userr.Errorf("%s %d is out of range: with --workers %d give 0 to %d", from, i, f.workers, f.workers-1)
	}
	runID, idFrom := f.runID, "--run-id"
	if runID == "" {
		runID, idFrom = getenv(envRunID), envRunID
	}
	if runID == "" {
		return nil, userr.Errorf("--workers %d: give the run an id every worker shares with --run-id ID (or %s), such as the date and the plan's name", f.workers, envRunID)
	}
	text, err := os.ReadFile(planPath)
	if err != nil {
		return nil, fmt.Errorf("read the plan: %w", err)
	}
	run := coord.Run{ID: runID, Workers: f.workers, Index: i, Plan: coord.PlanDigest(text, sets), Version: version}
	if err := run.Check(); err != nil {
		if idFrom == envRunID {
			return nil, fmt.Errorf("%s: %w", envRunID, err)
		}
		return nil, err
	}
	return &study.Distributed{Run: run, Keep: f.keepControl}, nil
}

// runWorker runs a worker other than worker 0: its slices go to the run's
// results topic, and worker 0 (or kbench collect) writes the results.
func runWorker(ctx context.Context, st *state, p *plan.Plan, scenarios []plan.Scenario, dist *study.Distributed, o runOptions) error {
	if o.out != "" {
		fmt.Fprintf(st.stderr, "kbench: worker %d writes no results folder (--out %s is worker 0's): its slices go to the run's results topic, which worker 0 merges\n", dist.Run.Index, o.out)
	}
	if o.metricsAddr != "" {
		return userr.Errorf("--metrics-addr: give it to worker 0 only (worker %d runs a slice; worker 0's live metrics are its own share, and the merge comes at the end of each repeat)", dist.Run.Index)
	}
	fmt.Fprintf(st.stderr, "kbench: %s: worker %d of %d on run %s: %d scenario(s) × %d repeat(s)\n", p.Name, dist.Run.Index, dist.Run.Workers, dist.Run.ID, len(scenarios), p.Repeat)
	view := live.New(st.stderr, live.IsTerminal(st.stderr, st.getenv), len(scenarios), p.Repeat)
	defer view.Close()
	_, err := study.Run(ctx, p, scenarios, study.Options{
		Progress:    view,
		Observer:    view,
		Version:     version,
		Abort:       st.abort,
		Named:       planNamedCluster(st, false),
		Distributed: dist,
		Run:         st.runScenario,
	})
	view.Close()
	if err == nil {
		fmt.Fprintf(st.stderr, "kbench: worker %d done: its slices are on the run's results topic; worker 0 writes the results\n", dist.Run.Index)
	}
	return err
}
