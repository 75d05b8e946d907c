package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/testkafka"
)

const (
	ombExamples = "../../examples/omb"
	ombDriver   = ombExamples + "/driver-kafka/kafka-throughput.yaml"
)

// TestOMBWorkloads runs OpenMessaging Benchmark's own workload files,
// unchanged with OMB's kafka-throughput driver, scaled down with --set, on
// the fake broker, and checks that every topic holds what its producers say
// they wrote and that every subscription read all of it, with end-to-end
// latency from the send-time header. TestConformanceOMB runs the first on
// real Kafka.
func TestOMBWorkloads(t *testing.T) {
	t.Parallel()
	runOMBWorkloads(t, testkafka.Fake(t), ombWorkloads)
}

// TestConformanceOMB runs an OMB workload file on real Kafka, checked as
// TestOMBWorkloads checks them.
func TestConformanceOMB(t *testing.T) {
	t.Parallel()
	runOMBWorkloads(t, testkafka.Bootstrap(t), ombWorkloads[:1])
}

// ombWorkload is a workload file and what its run must show.
type ombWorkload struct {
	file          string
	sets          []string
	topics, subs  int
	producers     int // clients per topic
	backlog       bool
	wantValueSize int
}

var ombWorkloads = []ombWorkload{
	{ombExamples + "/workloads/1-topic-100-partitions-1kb.yaml", []string{"producerRate=2000"}, 1, 1, 1, false, 1024},
	{ombExamples + "/workloads/backlog-1-topic-16-partitions-1kb.yaml", []string{"producerRate=2000", "consumerBacklogSizeGB=3MiB"}, 1, 1, 1, true, 1024},
	{"testdata/omb/1-topic-100-partitions-1kb-4p-4c-200k.yaml", []string{"producerRate=2000"}, 1, 1, 4, false, 1024},
	{"testdata/omb/max-rate-10-topics-1-partition-1kb.yaml", []string{"producerRate=2000"}, 10, 1, 1, false, 1024},
	// producerRate 0: OMB's balanced-rate search, over two control periods.
	{ombExamples + "/workloads/max-rate-1-topic-100-partitions-1kb.yaml", []string{"testDurationMinutes=7s"}, 1, 1, 1, false, 1024},
}

func runOMBWorkloads(t *testing.T, bootstrap string, tests []ombWorkload) {
	// The shared broker is one: replication 1, and the run is minutes
	// shorter than OMB's.
	common := []string{"cluster.bootstrap=" + bootstrap, "driver.replicationFactor=1", `driver.topicConfig.min\.insync\.replicas=1`,
		"warmupDurationMinutes=1s", "testDurationMinutes=4s"}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			var stdout, stderr syncBuffer
			st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			extra := filepath.Join(t.TempDir(), "omb.json")
			args := []string{"run", tt.file, "--omb-driver", ombDriver, "--out", out, "--omb-result", extra}
			for _, s := range append(append([]string(nil), common...), tt.sets...) {
				args = append(args, "--set", s)
			}
			if code := runKbench(t, st, args...); code != exitOK {
				t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
			}
			doc, err := result.Read(filepath.Join(out, "result.json"))
			if err != nil {
				t.Fatal(err)
			}
			if doc.Plan == nil || len(doc.Plan.Scenarios) != 1 || len(doc.Plan.Scenarios[0].Repeats) != 1 {
				t.Fatalf("result.json: %+v", doc.Plan)
			}
			rep := doc.Plan.Scenarios[0].Repeats[0]
			if len(rep.Workloads) != tt.topics*(1+tt.subs) {
				t.Fatalf("%d workloads, want %d", len(rep.Workloads), tt.topics*(1+tt.subs))
			}
			written, held := map[string]int64{}, map[string]int64{}
			for _, w := range rep.Workloads {
				if w.Type == "produce" {
					if w.Producer == nil || w.Topic == nil || w.Producer.Records == 0 || w.Producer.Clients != tt.producers {
						t.Fatalf("workload %s: producer %+v", w.Name, w.Producer)
					}
					written[w.Topic.Name] = w.Producer.Records
					if rs := w.Producer.BalancedRates; strings.Contains(tt.file, "max-rate-1-topic") && (len(rs) < 3 || rs[0].Rate != 10000) {
						t.Errorf("workload %s: balanced rates %+v, want 10,000 records/s then one per control period", w.Name, rs)
					}
				}
			}
			for _, w := range rep.Workloads {
				if w.Type != "consume" {
					continue
				}
				held[w.Topic.Name] = endOffsetSum(t, bootstrap, w.Topic.Name)
				if held[w.Topic.Name] != written[w.Topic.Name] {
					t.Errorf("topic %s holds %d records; its producers acknowledged %d", w.Topic.Name, held[w.Topic.Name], written[w.Topic.Name])
				}
				if w.Consumer == nil || w.Consumer.Records != held[w.Topic.Name] {
					t.Errorf("subscription %s read %v records of the %d its topic holds", w.Name, w.Consumer, held[w.Topic.Name])
				}
				if !regexp.MustCompile(`^sub-000-[A-Za-z0-9_-]{7}$`).MatchString(w.Name) || !strings.HasPrefix(w.Topic.Name, "test-topic-") {
					t.Errorf("subscription %s of topic %s: not OMB's names", w.Name, w.Topic.Name)
				}
				if e := w.EndToEnd; e == nil || e.Source != "header" || e.Count == 0 {
					t.Errorf("subscription %s: end-to-end latency %+v, want one from the send-time header", w.Name, e)
				}
				if tt.backlog && (w.CatchUp == nil || w.EndToEnd == nil || w.EndToEnd.Backlog == 0) {
					t.Errorf("subscription %s: no catch-up read of a backlog: %+v", w.Name, w.CatchUp)
				}
			}
			if _, bySize := topicRecords(t, bootstrap, rep.Workloads[0].Topic.Name); len(bySize) != 1 || bySize[tt.wantValueSize] == 0 {
				t.Errorf("values by size %v, want all of %d bytes", bySize, tt.wantValueSize)
			}
			sets := append(append([]string(nil), common...), tt.sets...)
			src, err := plan.LoadOMB(t.Context(), tt.file, ombDriver, sets, study.PlanTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			checkOMBResult(t, out, doc, held, src.Plan.OMB)
			renderOMBCharts(t, filepath.Join(out, "omb-result.json"), study.OMBRun(src.Plan.OMB).Workload)
			if a, b := readFile(t, extra), readFile(t, filepath.Join(out, "omb-result.json")); a != b {
				t.Errorf("--omb-result wrote another file than omb-result.json")
			}
			// kbench report writes OMB's result again, the same, from
			// result.json alone.
			if err := os.Remove(filepath.Join(out, "omb-result.json")); err != nil {
				t.Fatal(err)
			}
			if code := runKbench(t, st, "report", out); code != exitOK {
				t.Fatalf("report: exit %d\n%s", code, stderr.String())
			}
			if a, b := readFile(t, extra), readFile(t, filepath.Join(out, "omb-result.json")); a != b {
				t.Errorf("kbench report wrote another omb-result.json than the run")
			}
			for _, f := range []string{"summary.md", "summary.csv", "report.html", "plan.yaml", "omb-result.json"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}

// TestOMBDryRunAndFromOMB: --dry-run shows each OMB field's translation
// and the differences without a broker, and the plan from-omb prints
// loads and checks as any plan, to the same scenario.
func TestOMBDryRunAndFromOMB(t *testing.T) {
	t.Parallel()
	workload := ombExamples + "/workloads/max-rate-1-topic-100-partitions-1kb.yaml"
	abs, err := filepath.Abs(workload) // the printed plan names the payload file as found from it
	if err != nil {
		t.Fatal(err)
	}
	st, stdout, stderr := consumerTestState()
	if code := runKbench(t, st, "run", workload, "--omb-driver", ombDriver, "--dry-run", "--set", "testDurationMinutes=20s"); code != exitOK {
		t.Fatalf("dry run: exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{
		"OpenMessaging Benchmark workload " + workload + " with the Kafka driver " + ombDriver + ":",
		"  producerRate: 0\n      → rate: balanced on each of the 1 topic(s)' produce workload",
		"  testDurationMinutes: 20s (--set)\n",
		"  driver.replicationFactor: 3\n      → replication: 3 on each topic",
		"note: producerRate 0: OMB's balanced-rate search, as OMB runs it",
		"scenario 1: max-rate-1-topic-100-partitions-1kb: about 1m20s per repeat",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, stdout.String())
		}
	}
	st, stdout, stderr = consumerTestState()
	if code := runKbench(t, st, "plan", "from-omb", abs, "--omb-driver", ombDriver, "--set", "repeat=2"); code != exitOK {
		t.Fatalf("from-omb: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "kbench: note: producerRate 0:") {
		t.Errorf("from-omb does not say where the plan differs from OMB:\n%s", stderr.String())
	}
	saved := filepath.Join(t.TempDir(), "from-omb.yaml")
	if err := os.WriteFile(saved, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, stdout, stderr = consumerTestState()
	if code := runKbench(t, st, "run", saved, "--dry-run"); code != exitOK {
		t.Fatalf("the printed plan: exit %d\n%s", code, stderr.String())
	}
	if want := "1 scenario(s) × 2 repeat(s) against localhost:9092"; !strings.Contains(stdout.String(), want) {
		t.Errorf("the printed plan's dry run lacks %q:\n%s", want, stdout.String())
	}
}

// TestOMBErrors: what kbench cannot run as written exits 2 with where and
// why, before any broker is asked.
func TestOMBErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	body, err := os.ReadFile(ombExamples + "/workloads/1-topic-100-partitions-1kb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	unknown := write("unknown.yaml", strings.Replace(string(body), "producerRate: 50000", "producerRates: 50000", 1))
	pulsar := write("pulsar.yaml", "name: Pulsar\ndriverClass: io.openmessaging.benchmark.driver.pulsar.PulsarBenchmarkDriver\nclient:\n  serviceUrl: pulsar://localhost:6650\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"another system's driver", []string{"run", ombExamples + "/workloads/1-topic-100-partitions-1kb.yaml", "--omb-driver", pulsar}, "pulsar.yaml:2:14: driverClass: io.openmessaging.benchmark.driver.pulsar.PulsarBenchmarkDriver is OMB's driver for Apache Pulsar"},
		{"wrong type by --set", []string{"run", ombExamples + "/workloads/1-topic-100-partitions-1kb.yaml", "--omb-driver", ombDriver, "--set", "producerRate=fast"}, `--set producerRate=fast: producerRate: "fast" is not a whole number`},
		{"an OMB workload without its driver", []string{"run", ombExamples + "/workloads/1-topic-100-partitions-1kb.yaml", "--dry-run"}, "is an OpenMessaging Benchmark workload: give its Kafka driver file with --omb-driver"},
		{"from-omb without a driver", []string{"plan", "from-omb", ombExamples + "/workloads/1-topic-100-partitions-1kb.yaml"}, "plan from-omb: --omb-driver DRIVER.yaml is required"},
		{"plan: unknown command", []string{"plan", "from-k6"}, `unknown command "from-k6" for 'kbench plan'`},
		{"--omb-result of a kbench plan", []string{"run", "../../examples/max-rate.yaml", "--omb-result", filepath.Join(dir, "r.json"), "--dry-run"}, "--omb-result " + filepath.Join(dir, "r.json") + " needs --omb-driver"},
		{"--omb-result in a missing folder", []string{"run", ombExamples + "/workloads/1-topic-100-partitions-1kb.yaml", "--omb-driver", ombDriver, "--set", "cluster.bootstrap=127.0.0.1:1", "--out", filepath.Join(dir, "out"), "--omb-result", filepath.Join(dir, "no", "r.json")}, "--omb-result " + filepath.Join(dir, "no", "r.json") + ": cannot write there"},
	}
	for _, tt := range tests {
		st, _, stderr := consumerTestState()
		if code := runKbench(t, st, tt.args...); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%s: exit %d, want 2 with %q:\n%s", tt.name, code, tt.want, stderr.String())
		}
	}
	// An unknown field is what OMB ignores: a warning with did-you-mean,
	// not an error (OMB's forks write fields upstream lacks).
	must(t, os.MkdirAll(filepath.Join(dir, "payload"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "payload", "payload-1Kb.data"), bytes.Repeat([]byte{'x'}, 1024), 0o600))
	st, _, stderr := consumerTestState()
	want := `unknown.yaml:24:1: unknown field "producerRates"; did you mean "producerRate"?`
	if code := runKbench(t, st, "run", unknown, "--omb-driver", ombDriver, "--dry-run"); code != exitOK || !strings.Contains(stderr.String(), want) {
		t.Errorf("unknown field: exit %d, want 0 with the warning %q:\n%s", code, want, stderr.String())
	}
}
