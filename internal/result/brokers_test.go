package result

import (
	"strings"
	"testing"
)

// TestLimitOf: what held the producers back is named from both sides.
func TestLimitOf(t *testing.T) {
	rep := func(target, rate, brokerCPU, clientCPU float64, bound string) Repeat {
		w := Workload{Name: "p", Producer: &Producer{Records: 1_000_000, DurationSeconds: 10, RecordsPerSec: rate, TargetRate: target}}
		if bound != "" {
			w.Generator = &Generator{Bound: true, Reasons: []string{bound}}
		}
		return Repeat{Workloads: []Workload{w}, Process: &Process{CPUSeconds: clientCPU},
			Brokers: []BrokerCost{{ID: 1, CPUSeconds: brokerCPU / 2}, {ID: 2, CPUSeconds: brokerCPU / 2}}}
	}
	tests := []struct {
		name string
		rep  Repeat
		want string
	}{
		{"kbench bound", rep(0, 100000, 5, 19, "kbench used 97% of the machine's 2 CPUs"), "the client: kbench used 97% of the machine's 2 CPUs"},
		{"rate reached", rep(1000, 999, 1, 1, ""), "nothing: every rate asked was reached"},
		{"brokers saturate the machine", rep(0, 300000, 14, 5, ""), "the brokers' CPU: the brokers used 1.4 and kbench 0.5 of the machine's 2 cores"},
		{"kbench uses more", rep(0, 300000, 6, 13, ""), "the client's CPU: the brokers used 0.6 and kbench 1.3"},
		{"CPU to spare", rep(0, 50000, 4, 3, ""), "not the CPU (the brokers used 0.4 and kbench 0.3 of the machine's 2 cores)"},
		{"a remote cluster", Repeat{Workloads: rep(0, 1, 0, 0, "").Workloads}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LimitOf(tt.rep, 2)
			if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
				t.Errorf("%q, want it to begin %q", got, tt.want)
			}
		})
	}
}
