package study

import (
	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/runner"
	"github.com/kbench/kbench/internal/workload"
)

// balanceOf marks a rate: balanced workload's spec.
func balanceOf(w *plan.Workload) *load.Balance {
	if !w.Balanced {
		return nil
	}
	return load.NewBalance(load.OMBStartRate, w.Clients)
}

// withBalance gives a repeat of sc a fresh Balance (OMB's balanced-rate
// search starts over each repeat), shared by all its rate: balanced
// producers, with their clients, and told what every consume workload of
// the scenario reads, as OMB counts every consumer.
func withBalance(sc runner.Scenario) runner.Scenario {
	clients := 0
	for _, w := range sc.Workloads {
		if b, ok := w.Spec.(workload.Balanced); ok {
			clients += b.BalanceClients()
		}
	}
	if clients == 0 {
		return sc
	}
	b := load.NewBalance(load.OMBStartRate, clients)
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		if bs, ok := w.Spec.(workload.Balanced); ok {
			w.Spec = bs.WithBalance(b)
		}
	}
	return sc
}
