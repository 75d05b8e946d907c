package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/result"
)

// runPlanText runs a plan whose cluster kbench starts and checks its
// report in a browser (skipped without one).
func runPlanText(t *testing.T, text, name string) (*result.Document, *cluster.Cluster, string) {
	t.Helper()
	doc, c, stderr, out := runPlanOnly(t, text)
	checkReport(t, out, name)
	return doc, c, stderr
}

// runPlanOnly runs a plan whose cluster kbench starts and returns its
// result, the test's copy of the plan's cluster (still running), stderr
// and the output folder.
func runPlanOnly(t *testing.T, text string) (*result.Document, *cluster.Cluster, string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts a real Kafka cluster")
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, _ := clusterTestState(t)
	var stdout, stderr syncBuffer
	st.stdout, st.stderr = &stdout, &stderr
	var c *cluster.Cluster
	st.keepPlanCluster = func(pc *cluster.Cluster) {
		c = pc
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := pc.Stop(ctx, false); err != nil && !errors.Is(err, context.Canceled) {
				t.Logf("stop the plan's cluster: %v", err)
			}
		})
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	code := run(ctx, []string{"kbench", "run", planFile, "--out", out}, st)
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		t.Fatal("the plan started no local cluster")
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	verified := false
	for _, sc := range doc.Plan.Scenarios {
		for _, rep := range sc.Repeats {
			verified = verified || len(rep.Verification) > 0
		}
	}
	if err != nil || !strings.Contains(string(md), "## Faults") || (verified && !strings.Contains(string(md), "## Verification")) {
		t.Errorf("summary.md lacks the faults or the verification table (%v):\n%s", err, md)
	}
	return doc, c, stderr.String(), out
}

// TestConformancePlanOwnCluster runs a plan whose cluster kbench starts
// and stops itself (cluster.local, as the README's first command does):
// the one test of that path on real Kafka. Regression: with the only
// broker (and controller) of a cluster paused, the heal came after the
// producer's flush had waited out its delivery timeout: the repeat took
// 2 m 15 s. The timeline now heals as soon as sending ends, and the flush
// completes.
func TestConformancePlanOwnCluster(t *testing.T) {
	t.Parallel()
	doc, _, stderr := runPlanText(t, `name: pause-controller
cluster:
  local: {brokers: 1, heap: 512m}
topics:
  - {name: p, partitions: 2, replication: 1}
workloads:
  - {name: writer, type: produce, topic: p, message: {size: 100}, rate: 500/s, duration: 8s}
faults:
  - {action: pause, target: controller, at: 3s}
`, "pause-controller")
	rep := doc.Plan.Scenarios[0].Repeats[0]
	for _, f := range rep.Faults {
		t.Logf("%s %s (broker %d) at %.1f s: election %v %q, ISR %v", f.Action, f.Target, f.Broker, f.AtSeconds, f.ElectionMs, f.ElectionNote, f.ISRRecoveredMs)
	}
	// Sending lasts 8 s; the bound leaves 52 s for the heal and the flush,
	// against the 120 s delivery timeout the flush waited out before.
	if took := rep.EndedAt.Sub(rep.StartedAt); took > time.Minute {
		t.Errorf("the repeat took %s; want the heal when sending ends and a prompt flush", took)
	}
	if rep.Status != result.StatusOK || len(rep.Faults) != 2 {
		t.Fatalf("repeat %s (%s): faults %+v\n%s", rep.Status, rep.Error, rep.Faults, stderr)
	}
	if heal := rep.Faults[1]; heal.Name != "heal" || heal.Action != "resume" || heal.AtSeconds > 20 {
		t.Errorf("heal %+v; want the paused broker resumed when sending ended (8 s)", heal)
	}
	if v := rep.Verification[0]; !v.Passed || v.Lost != 0 || v.Acked != rep.Workloads[0].Producer.Records {
		t.Errorf("verification %+v", v)
	}
	// The brokers' own cost: the broker paused for 5 s of the repeat
	// still used some CPU, kept its memory, and wrote the records.
	if len(rep.Brokers) != 1 || rep.Brokers[0].CPUSeconds <= 0 || rep.Brokers[0].RSSPeakBytes <= 0 || rep.Brokers[0].CPUCores == nil || len(rep.Brokers[0].CPUCores.Values) == 0 {
		t.Errorf("brokers %+v; want the one broker's CPU, memory and its CPU a step a second", rep.Brokers)
	}
}

// TestRunNamedClusterErrors: a plan naming a local cluster that is not
// there, or not up, stops before anything runs, saying where the plan names
// it and what to do (exit 2).
func TestRunNamedClusterErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, cluster, want string }{
		{"none of that name", "nope", `plan.yaml:3:9: cluster.name: no local cluster named "nope" (known: down); start it first: kbench cluster up --name nope --brokers 3`},
		{"a broker down", "down", `plan.yaml:3:9: cluster.name: broker 1 of cluster "down" is not running; bring it back with 'kbench cluster up --name down'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, _, stderr := clusterTestState(t)
			dir := filepath.Join(clusterStateDir(st), "down")
			state := fmt.Sprintf(`{"name": "down", "dir": %q, "brokers": [{"id": 1, "pid": 0, "port": 1, "config_path": %q}]}`, dir, filepath.Join(dir, "node-1", "server.properties"))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "cluster.json"), []byte(state), 0o644); err != nil {
				t.Fatal(err)
			}
			plan := filepath.Join(t.TempDir(), "plan.yaml")
			text := "name: named\ncluster:\n  name: " + tt.cluster + "\ntopics: [{name: t, partitions: 1}]\nworkloads: [{name: w, type: produce, topic: t, message: {size: 10}, records: 10}]\n"
			if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			code := runKbench(t, st, "run", plan, "--out", filepath.Join(t.TempDir(), "out"))
			if got := strings.ReplaceAll(stderr.String(), filepath.Dir(plan)+"/", ""); code != exitUsage || !strings.Contains(got, tt.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and %q", code, got, exitUsage, tt.want)
			}
		})
	}
}
