package runner

import (
	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/plan"
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
func withBalance(sc Scenario) Scenario {
	clients := 0
	for _, w := range sc.Workloads {
		if w.Producer != nil && w.Producer.Balance != nil {
			clients += max(w.Producer.Clients, 1)
		}
	}
	if clients == 0 {
		return sc
	}
	b := load.NewBalance(load.OMBStartRate, clients)
	for i := range sc.Workloads {
		w := &sc.Workloads[i]
		switch {
		case w.Producer != nil && w.Producer.Balance != nil:
			spec := *w.Producer
			spec.Balance = b
			w.Producer = &spec
		case w.Kind == Consume && w.Consumer != nil:
			spec := *w.Consumer
			spec.Balance = b
			w.Consumer = &spec
		}
	}
	return sc
}
