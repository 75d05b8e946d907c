package report

import (
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestBrokerTable: the brokers' CPU is set beside the records
// acknowledged, and their storage writes beside the records' bytes times
// their replicas; figures /proc did not give are "–", not 0.
func TestBrokerTable(t *testing.T) {
	w := func(n int64) *int64 { return &n }
	producer := result.Workload{Name: "p", Topic: &result.Topic{Name: "t", ReplicationFactor: 3}, Producer: &result.Producer{Records: 2_000_000, Bytes: 200_000_000}}
	tests := []struct {
		name    string
		brokers []result.BrokerCost
		want    []string // from "brokers" on
	}{
		{"three brokers", []result.BrokerCost{
			{ID: 1, CPUSeconds: 4, RSSPeakBytes: 700 << 20, DiskWriteBytes: w(300 << 20)},
			{ID: 2, CPUSeconds: 3, RSSPeakBytes: 800 << 20, DiskWriteBytes: w(300 << 20)},
			{ID: 3, CPUSeconds: 3, RSSPeakBytes: 600 << 20, DiskWriteBytes: w(300 << 20)},
		}, []string{"3", "10.0", "5.00", "200000", "800", "900.0", "472", "300"}},
		{"no disk figures", []result.BrokerCost{{ID: 1, CPUSeconds: 2, RSSPeakBytes: 100 << 20}},
			[]string{"1", "2.0", "1.00", "1000000", "100", "–", "–", "300"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{{Index: 1, Workloads: []result.Workload{producer}, Brokers: tt.brokers}}}}}
			tab := brokerTable(run)
			if tab == nil || len(tab.Rows) != 1 {
				t.Fatalf("table %+v, want one row", tab)
			}
			if got := tab.Rows[0][2:10]; strings.Join(got, " | ") != strings.Join(tt.want, " | ") {
				t.Errorf("cells %q, want %q", got, tt.want)
			}
		})
	}
	disks := result.Repeat{Index: 1, Workloads: []result.Workload{producer}, Brokers: []result.BrokerCost{{ID: 1, CPUSeconds: 2}, {ID: 2, CPUSeconds: 2}},
		Disks: []result.Disk{{Device: "vda", Brokers: []int{1}, BusyPct: 91.4, PeakBusyPct: 100}}, DisksUnjudged: []string{"broker 2: node-2 is on a file system with no block device (major 0)"}}
	tab := brokerTable(&result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{disks}}}})
	if got := tab.Rows[0][11]; got != "91" {
		t.Errorf("disk busy %q, want 91", got)
	}
	if notes := strings.Join(tab.Notes, "\n"); !strings.Contains(notes, "leaves out broker 2: node-2 is on a file system with no block device") || !strings.Contains(notes, "/proc/diskstats") {
		t.Errorf("notes:\n%s\nwant the device left out and what disk busy is", notes)
	}
	if brokerTable(&result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{{Index: 1}}}}}) != nil {
		t.Error("a run without broker figures (a remote cluster) has a brokers table")
	}
}

// TestBrokerTableKafka: the brokers' own metrics give the busiest
// broker's handlers busy; a remote cluster's
// endpoints give a row without /proc's figures; what an endpoint lacks and
// a failed scrape are said once, the failed repeat's row flagged.
func TestBrokerTableKafka(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	producer := result.Workload{Name: "p", Producer: &result.Producer{Records: 1000, Bytes: 100_000, DurationSeconds: 10}}
	lacks := []string{"endpoint http://b1/m has no kafka_server_replicamanager_isrshrinks: ISR shrinks not measured"}
	remote := func(idle float64, err string) result.Repeat {
		return result.Repeat{Index: 1, Workloads: []result.Workload{producer}, Brokers: []result.BrokerCost{
			{Endpoint: "http://b1/m", Kafka: &result.KafkaMetrics{RequestHandlerIdle: f(idle), NetworkProcessorIdle: f(0.9), Lacks: lacks, Error: err}},
			{Endpoint: "http://b2/m", Kafka: &result.KafkaMetrics{RequestHandlerIdle: f(0.6), Lacks: lacks}},
		}}
	}
	r2 := remote(0.25, "scrape endpoint http://b1/m: 503 Service Unavailable")
	r2.Index = 2
	run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{remote(0.2, ""), r2}}}}
	tab := brokerTable(run)
	if tab == nil || len(tab.Rows) != 2 {
		t.Fatalf("table %+v, want two rows", tab)
	}
	if got, want := strings.Join(tab.Rows[0][2:], " | "), "2 | – | – | – | – | – | – | – | 80 | – | the brokers' request handlers, 80% busy on http://b1/m"; got != want {
		t.Errorf("row\n%s\nwant\n%s", got, want)
	}
	if tab.Bad[0] || !tab.Bad[1] {
		t.Errorf("flags %v, want the repeat whose scrape failed flagged", tab.Bad)
	}
	notes := strings.Join(tab.Notes, "\n")
	if strings.Count(notes, "ISR shrinks not measured") != 1 || strings.Count(notes, "503 Service Unavailable") != 1 || strings.Contains(notes, "/proc") {
		t.Errorf("notes:\n%s\nwant what is lacking and the failed scrape once each, and nothing of /proc", notes)
	}
}

// TestBrokerCSV: summary.csv's brokers' cost is the mean over the repeats
// that ended ok; a failed repeat's figures are left out. Records per
// broker core need /proc's CPU; the busiest handlers' share comes from
// the brokers' metrics alone (a remote cluster's cluster.metrics); disk
// busy is the busiest device's.
func TestBrokerCSV(t *testing.T) {
	w := func(n int64) *int64 { return &n }
	idle := func(v float64) *result.KafkaMetrics { return &result.KafkaMetrics{RequestHandlerIdle: &v} }
	rep := func(status string, cpu, handlersIdle, diskBusy float64) result.Repeat {
		return result.Repeat{Status: status, Workloads: []result.Workload{{Producer: &result.Producer{Records: 1_000_000}}},
			Brokers: []result.BrokerCost{{ID: 1, CPUSeconds: cpu, Processes: 1, RSSPeakBytes: 512 << 20, DiskWriteBytes: w(150_000_000), Kafka: idle(handlersIdle)}},
			Disks:   []result.Disk{{Device: "vda", Brokers: []int{1}, BusyPct: diskBusy}, {Device: "vdb", Brokers: []int{2}, BusyPct: diskBusy / 2}}}
	}
	remote := result.Repeat{Status: result.StatusOK, Brokers: []result.BrokerCost{{Endpoint: "http://b1/m", Kafka: idle(0.45)}}}
	tests := []struct {
		name string
		reps []result.Repeat
		want string
	}{
		{"a local cluster", []result.Repeat{rep(result.StatusOK, 2, 0.4, 30), rep(result.StatusOK, 4, 0.2, 50), rep(result.StatusFailed, 100, 0, 100)}, "3.000,512,150,375000,70.0,40.0"},
		{"a remote cluster with cluster.metrics", []result.Repeat{remote}, ",,,,55.0,"},
		{"a remote cluster", []result.Repeat{{Status: result.StatusOK}}, ",,,,,"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := brokerCSV(&result.Scenario{Repeats: tt.reps}); strings.Join(got, ",") != tt.want {
				t.Errorf("cells %q, want %s", got, tt.want)
			}
		})
	}
}

// TestWatchedTable: each watched group's lag and how it came through the
// repeat's faults; a group that could not be read is flagged with why.
func TestWatchedTable(t *testing.T) {
	ms := 3500.0
	run := &result.PlanRun{Scenarios: []result.Scenario{{Name: "s", Repeats: []result.Repeat{{Index: 1, Watched: []result.WatchedGroup{
		{Group: "orders", MaxLag: 900, Samples: []result.LagPoint{{Records: 10}, {Records: 900}, {Records: 5}},
			Recoveries: []result.GroupRecovery{{Fault: "kill-leader", LagBefore: 11, PeakLag: 900, RecoveredMs: &ms}}},
		{Group: "billing", Error: "no such group: it has never committed offsets on this cluster"},
	}}}}}}
	tab := watchedTable(run)
	if tab == nil || len(tab.Rows) != 2 {
		t.Fatalf("table %+v, want two rows", tab)
	}
	if got := strings.Join(tab.Rows[0][2:], " | "); got != "orders | 900 | 5 | kill-leader: lag 11 → 900, back after 3500 ms" {
		t.Errorf("row %q", got)
	}
	if !tab.Bad[1] || !strings.Contains(strings.Join(tab.Notes, "\n"), "billing: no such group") {
		t.Errorf("the unreadable group is not flagged: %v %q", tab.Bad, tab.Notes)
	}
}
