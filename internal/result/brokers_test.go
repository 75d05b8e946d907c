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
	// withIdle gives broker i the request handlers' idle ratio idle[i].
	withIdle := func(r Repeat, idle ...float64) Repeat {
		r.Brokers = append([]BrokerCost(nil), r.Brokers...)
		for i, v := range idle {
			r.Brokers[i].Processes = 1
			r.Brokers[i].Kafka = &KafkaMetrics{RequestHandlerIdle: &v}
		}
		return r
	}
	withDisk := func(r Repeat, busy float64) Repeat {
		r.Disks = []Disk{{Device: "vda", Brokers: []int{1, 2}, BusyPct: busy, PeakBusyPct: 100}}
		return r
	}
	withProxies := func(r Repeat, cpu float64) Repeat {
		r.Network = &Network{ProxyCPUSeconds: &cpu}
		return r
	}
	withLink := func(r Repeat, busy float64) Repeat {
		r.Network = &Network{Interface: "eth0", LinkMbps: 1000, BusyPct: &busy}
		return r
	}
	remote := func(idle float64) Repeat {
		return Repeat{Workloads: rep(0, 1, 0, 0, "").Workloads,
			Brokers: []BrokerCost{{Endpoint: "https://b1:9404/metrics", Kafka: &KafkaMetrics{RequestHandlerIdle: &idle}}}}
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
		{"handlers busy, CPU to spare", withIdle(rep(0, 50000, 4, 3, ""), 0.5, 0.2), "the brokers' request handlers, 80% busy on broker 2; not the CPU (the brokers used 0.4"},
		{"handlers idle, CPU to spare", withIdle(rep(0, 50000, 4, 3, ""), 0.9, 0.8), "not the CPU (the brokers used 0.4 and kbench 0.3 of the machine's 2 cores), nor the brokers' request handlers (20% busy on broker 2): the brokers' disks or the network, which kbench did not measure here"},
		{"CPU saturated before the handlers", withIdle(rep(0, 300000, 14, 5, ""), 0.1), "the brokers' CPU: "},
		{"a remote cluster's busy handlers", remote(0.05), "the brokers' request handlers, 95% busy on https://b1:9404/metrics"},
		{"a remote cluster's idle handlers", remote(0.95), "not the brokers' request handlers (5% busy on https://b1:9404/metrics): the brokers' CPU, the brokers' disks or the network, which kbench did not measure here"},
		{"disks busy", withDisk(withIdle(rep(0, 50000, 4, 3, ""), 0.9, 0.8), 93), "the brokers' disks: vda busy 93% of the repeat, its busiest second 100%; not the CPU (the brokers used 0.4 and kbench 0.3 of the machine's 2 cores), nor the brokers' request handlers (20% busy on broker 2)"},
		{"handlers before disks", withDisk(withIdle(rep(0, 50000, 4, 3, ""), 0.1, 0.8), 93), "the brokers' request handlers, 90% busy on broker 1"},
		{"fault proxies take the cores", withProxies(rep(0, 50000, 4, 3, ""), 12), "the network between: kbench's network proxies, on the same cores (the brokers used 0.4, kbench 0.3 and its network proxies 1.2 of the machine's 2 cores)"},
		{"proxies counted, brokers most", withProxies(rep(0, 50000, 10, 3, ""), 6), "the brokers' CPU: the brokers used 1.0, kbench 0.3 and its network proxies 0.6"},
		{"a remote cluster's link full", withLink(remote(0.5), 91), "the network: eth0 carried 91% of its 1000 Mb/s; not the brokers' request handlers (50% busy"},
		{"everything measured, nothing busy", withLink(withDisk(withIdle(rep(0, 50000, 4, 3, ""), 0.9, 0.8), 10), 5), "not the CPU (the brokers used 0.4 and kbench 0.3 of the machine's 2 cores), nor the brokers' request handlers (20% busy on broker 2), nor the brokers' disks (vda busy 10% of the repeat, its busiest second 100%), nor the network (eth0 carried 5% of its 1000 Mb/s): the clients' own pace"},
		{"disks alone", withDisk(Repeat{Workloads: rep(0, 1, 0, 0, "").Workloads}, 85), "the brokers' disks: vda busy 85%"},
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
