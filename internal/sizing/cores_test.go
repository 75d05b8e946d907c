package sizing

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/userr"
)

// costedScenario is a scenario of ok repeats on a local cluster: records
// of recordBytes with replication 3, the brokers' CPU seconds per repeat
// as given (nil brokers: a remote cluster).
func costedScenario(t *testing.T, name string, records int64, recordBytes int64, cpu ...float64) result.Scenario {
	t.Helper()
	t0 := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	sc := result.Scenario{Name: name}
	for i, c := range cpu {
		rep := result.Repeat{Index: i + 1, StartedAt: t0, EndedAt: t0.Add(10 * time.Second), Status: result.StatusOK,
			Workloads: []result.Workload{{Name: "p", Type: "produce", Topic: &result.Topic{Name: "t", Partitions: 3, ReplicationFactor: 3},
				Producer: &result.Producer{Clients: 1, Records: records, Bytes: records * recordBytes, DurationSeconds: 10, RecordsPerSec: float64(records) / 10,
					MiBPerSec: float64(records*recordBytes) / 10 / (1 << 20)}}}}
		if c > 0 {
			rep.Brokers = []result.BrokerCost{{ID: 1, CPUSeconds: c / 2, Processes: 1}, {ID: 2, CPUSeconds: c / 2, Processes: 1}}
		}
		sc.Repeats = append(sc.Repeats, rep)
	}
	if err := result.AggregateScenario(&sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

// writePlanResult writes a plan run's result.json of scs into a results
// folder and returns the folder.
func writePlanResult(t *testing.T, scs ...result.Scenario) string {
	t.Helper()
	dir := t.TempDir()
	doc := result.New(result.KindPlan, "test", time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC), nil)
	doc.Status = result.StatusOK
	doc.EndedAt = doc.StartedAt.Add(time.Minute)
	doc.Plan = &result.PlanRun{Name: "p", Repeat: len(scs[0].Repeats), Scenarios: scs}
	if err := result.Write(filepath.Join(dir, "result.json"), doc); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFromResult: a run's records per broker core are the mean over a
// scenario's repeats (1M records over 8 and 12 CPU s: 125,000 and 83,333,
// so 104,167); with several scenarios the lowest is taken; a run
// that did not measure its brokers, or a drop-in's result, is the user's
// error naming why.
func TestFromResult(t *testing.T) {
	t.Parallel()
	two := writePlanResult(t, costedScenario(t, "small", 1_000_000, 100, 5, 5), costedScenario(t, "large", 1_000_000, 1000, 8, 12))
	remote := writePlanResult(t, costedScenario(t, "s", 1000, 100, 0))
	dropIn := filepath.Join(t.TempDir(), "p.json")
	if err := result.Write(dropIn, &result.Document{Kind: result.KindProducerPerf, Status: result.StatusOK, Topic: &result.Topic{Name: "t", Partitions: 1},
		Producer: &result.Producer{Records: 1, Bytes: 1 << 20, DurationSeconds: 1, RecordsPerSec: 1, MiBPerSec: 1}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    CoreRate
		wantErr string
	}{
		{"the folder, two scenarios", two, CoreRate{RecordsPerSec: 104_167, Scenario: "large", Repeats: 2, Replication: 3, RecordBytes: 1000, Others: 1}, ""},
		{"its result.json", filepath.Join(two, "result.json"), CoreRate{RecordsPerSec: 104_167, Scenario: "large", Repeats: 2, Replication: 3, RecordBytes: 1000, Others: 1}, ""},
		{"a remote cluster", remote, CoreRate{}, "no scenario measured records per broker core"},
		{"a drop-in's result", dropIn, CoreRate{}, "not a plan run's"},
		{"nothing there", filepath.Join(t.TempDir(), "none"), CoreRate{}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := FromResult(tt.path)
			if tt.wantErr != "" {
				if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want a user error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Path = ""
			if *got != tt.want {
				t.Errorf("%+v, want %+v", *got, tt.want)
			}
		})
	}
}

// TestBrokerCPUSized: the rate over the records per core is the cores the
// cluster needs, shown with its arithmetic and where the figure came
// from, in the text and the JSON; a run unlike what is sized says so.
func TestBrokerCPUSized(t *testing.T) {
	t.Parallel()
	in := seedInput(t) // 10,000 rec/s of 2,500 B, replication 3 on 4 brokers
	in.Cores = &CoreRate{RecordsPerSec: 80_000, Path: "results/run/result.json", Scenario: "acks=all", Repeats: 3, Replication: 1, RecordBytes: 1000}
	e, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	if e.Cores == nil || e.Cores.Cluster != 0.13 || e.Cores.PerBroker != 0.03 {
		t.Fatalf("cores %+v, want 0.13 across the cluster (10,000 / 80,000 rounded) and 0.03 per broker", e.Cores)
	}
	var text bytes.Buffer
	if err := WriteText(&text, e); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Broker CPU (measured: --from results/run/result.json)",
		"one broker core carried 80,000 rec/s (scenario acks=all, mean of 3 repeats)",
		"= 10,000 rec/s / 80,000 rec/s = 0.13 cores",
		"= 0.13 cores / 4 brokers = 0.03 cores",
		"careful: the run had replication 1, not 3",
		"careful: the run's records were 1,000 B, not about 2,500 B",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, e); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		CPU *jsonCores `json:"broker_cpu"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.CPU == nil || doc.CPU.ClusterCores != 0.13 || doc.CPU.RecordsPerSecPerCore != 80_000 || len(doc.CPU.Caveats) != 2 {
		t.Errorf("broker_cpu %+v", doc.CPU)
	}
	without, err := Compute(seedInput(t))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if err := WriteJSON(&plain, without); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "broker_cpu") {
		t.Error("broker_cpu written without --from")
	}
}
