package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// runSizeCmd runs kbench size with args through run, as main does, and
// returns the exit code, stdout and stderr.
func runSizeCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, cacheDir: t.TempDir()}
	code := run(context.Background(), append([]string{"kbench", "size"}, args...), st)
	return code, stdout.String(), stderr.String()
}

var sizeSeedArgs = []string{"--rate", "10000/s", "--record-size", "2.5KB", "--retention", "7d", "--replication", "3", "--brokers", "4"}

func TestSizeCmd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    []string // substrings of stdout
		wantStderr []string // substrings of stderr
	}{
		{
			name:     "seed 002",
			args:     sizeSeedArgs,
			wantCode: exitOK,
			wantOut: []string{
				"ingest            = 10,000 rec/s × 2,500 B = 25,000,000 B/s = 25.0 MB/s (23.8 MiB/s)",
				"15.12 TB (13.75 TiB)", "45.36 TB (41.25 TiB)", "11.34 TB (10.31 TiB)",
				"24,414 KiB/s", "13.74 \"TB\" is TiB",
				"100 × 4 brokers × 3 replication = 1,200 partitions per broker",
			},
		},
		{
			name:     "seed consumer table",
			args:     append([]string{"--partition-consumer-rate", "2500/s"}, sizeSeedArgs...),
			wantCode: exitOK,
			wantOut:  []string{"10,000 rec/s / 2,500 rec/s = 4 → at least 4 partitions", "recommended       4 partitions"},
		},
		{
			name:       "bad rate",
			args:       []string{"--rate", "fast", "--record-size", "2.5KB", "--retention", "7d"},
			wantCode:   exitUsage,
			wantStderr: []string{`kbench: --rate "fast" is not a rate; write records per second such as 25000, 25000/s, 25k/s, 1.5M/s or 600/m`},
		},
		{
			name:       "bad retention",
			args:       []string{"--rate", "10000/s", "--record-size", "2.5KB", "--retention", "7x"},
			wantCode:   exitUsage,
			wantStderr: []string{`kbench: --retention "7x": unknown unit "x" (ns, us, ms, s, m, h, d or w); write a duration such as 90s, 1m30s, 500ms, 2h, 7d or 1w`},
		},
		{
			name:       "ambiguous size",
			args:       []string{"--rate", "10000/s", "--record-size", "2.5K", "--retention", "7d"},
			wantCode:   exitUsage,
			wantStderr: []string{`--record-size "2.5K": K is ambiguous; write 2.5KB`},
		},
		{
			name:       "bad headroom",
			args:       append([]string{"--headroom", "30"}, sizeSeedArgs...),
			wantCode:   exitUsage,
			wantStderr: []string{`--headroom "30": ambiguous headroom; write 30% for 30 percent`},
		},
		{
			// Regression: absurd rates were sized, with inexact 36-digit figures.
			name:       "rate too large",
			args:       []string{"--rate", "100000000000000000000/s", "--record-size", "1PB", "--retention", "1000w"},
			wantCode:   exitUsage,
			wantStderr: []string{`kbench: --rate 100000000000000000000/s: more than 1,000,000,000 records/s`},
		},
		{
			name:       "bad partition rate",
			args:       append([]string{"--partition-producer-rate", "quick"}, sizeSeedArgs...),
			wantCode:   exitUsage,
			wantStderr: []string{`--partition-producer-rate "quick" is not a rate`},
		},
		{
			name:       "replication over brokers",
			args:       []string{"--rate", "10000/s", "--record-size", "2.5KB", "--retention", "7d", "--brokers", "2"},
			wantCode:   exitUsage,
			wantStderr: []string{"replication 3 is more than 2 brokers", "different broker", "(--replication defaults to 3)"},
		},
		{
			name:       "missing rate",
			args:       []string{"--record-size", "2.5KB", "--retention", "7d"},
			wantCode:   exitUsage,
			wantStderr: []string{"--rate is required, such as --rate 10000/s"},
		},
		{
			name:       "bad int flag",
			args:       append(sizeSeedArgs, "--brokers", "four"),
			wantCode:   exitUsage,
			wantStderr: []string{"--brokers"},
		},
		{
			name:       "stray argument",
			args:       append(sizeSeedArgs, "extra"),
			wantCode:   exitUsage,
			wantStderr: []string{`unexpected argument "extra"`},
		},
		{
			name:       "missing results",
			args:       append(sizeSeedArgs, "--from-results", "does-not-exist.json"),
			wantCode:   exitUsage,
			wantStderr: []string{"--from-results", "does-not-exist.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runSizeCmd(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

func TestSizeCmdFromResultsJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	docs := map[string]*result.Document{
		"p.json": {
			Kind: result.KindProducerPerf, Status: result.StatusOK,
			Topic:    &result.Topic{Name: "size-1p", Partitions: 1},
			Producer: &result.Producer{Records: 1000, Bytes: 2500000, DurationSeconds: 0.025, RecordsPerSec: 40000, MiBPerSec: 2500000 / 0.025 / (1 << 20)},
		},
		"c.json": {
			Kind: result.KindConsumerPerf, Status: result.StatusOK,
			Topic:    &result.Topic{Name: "size-1p", Partitions: 1},
			Consumer: &result.Consumer{Records: 1000, Bytes: 2500000, DurationSeconds: 1000.0 / 2650, RecordsPerSec: 2650, MiBPerSec: 2500000 / (1000.0 / 2650) / (1 << 20)},
		},
	}
	for name, d := range docs {
		if err := result.Write(filepath.Join(dir, name), d); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runSizeCmd(t, append(sizeSeedArgs, "--from-results", dir, "--json")...)
	if code != exitOK {
		t.Fatalf("exit code %d\n%s", code, errOut)
	}
	var doc struct {
		Schema     string  `json:"schema"`
		Ingest     float64 `json:"ingest_bytes_per_sec"`
		PerBroker  float64 `json:"storage_per_broker_bytes"`
		Partitions struct {
			ForProducers int `json:"for_producers"`
			ForConsumers int `json:"for_consumers"`
			Recommended  int `json:"recommended"`
			Results      []struct {
				Path string `json:"path"`
				Used bool   `json:"used"`
			} `json:"results"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	p := doc.Partitions
	if doc.Schema != "kbench.size/v1" || doc.Ingest != 25e6 || doc.PerBroker != 11.34e12 ||
		p.ForProducers != 1 || p.ForConsumers != 4 || p.Recommended != 4 || len(p.Results) != 2 {
		t.Fatalf("unexpected document: %+v\n%s", doc, out)
	}
}

// TestSizeCmdFrom: --from a run's results folder sizes the brokers' CPU
// by its records/s per broker core and says so; the other flags keep
// their meaning; a result without the figure is a usage error naming why.
func TestSizeCmdFrom(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	planResult := func(t *testing.T, brokers []result.BrokerCost) string {
		t.Helper()
		sc := result.Scenario{Name: "acks=all", Repeats: []result.Repeat{{Index: 1, StartedAt: t0, EndedAt: t0.Add(10 * time.Second), Status: result.StatusOK,
			Workloads: []result.Workload{{Name: "p", Type: "produce", Topic: &result.Topic{Name: "t", Partitions: 3, ReplicationFactor: 3},
				Producer: &result.Producer{Clients: 1, Records: 500_000, Bytes: 500_000 * 2500, DurationSeconds: 10, RecordsPerSec: 50_000, MiBPerSec: 500_000 * 2500 / 10.0 / (1 << 20)}}},
			Brokers: brokers}}}
		if err := result.AggregateScenario(&sc); err != nil {
			t.Fatal(err)
		}
		doc := result.New(result.KindPlan, "test", t0, nil)
		doc.Status, doc.EndedAt = result.StatusOK, t0.Add(time.Minute)
		doc.Plan = &result.PlanRun{Name: "p", Repeat: 1, Scenarios: []result.Scenario{sc}}
		dir := t.TempDir()
		if err := result.Write(filepath.Join(dir, "result.json"), doc); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	local := planResult(t, []result.BrokerCost{{ID: 1, CPUSeconds: 2.5, Processes: 1}, {ID: 2, CPUSeconds: 2.5, Processes: 1}})
	remote := planResult(t, nil)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"local", append(sizeSeedArgs, "--from", local), exitOK, []string{
			"Broker CPU (measured: --from " + filepath.ToSlash(filepath.Join(local, "result.json")) + ")",
			"one broker core carried 100,000 rec/s (scenario acks=all, mean of 1 repeat)",
			"= 10,000 rec/s / 100,000 rec/s = 0.1 cores",
			"11.34 TB (10.31 TiB)", // the storage, as without --from
		}},
		{"remote", append(sizeSeedArgs, "--from", remote), exitUsage, []string{"--from: ", "no scenario measured records per broker core"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runSizeCmd(t, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit code %d, want %d\n%s%s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errOut)
				}
			}
		})
	}
}
