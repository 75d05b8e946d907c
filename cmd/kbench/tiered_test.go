package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/result"
)

// tieredTestPlan compares a catch-up read from local segments with the
// same read from the remote tier, on a one-broker tiered-storage cluster
// kbench starts: 6 MB on 1 MiB segments, 2 partitions.
const tieredTestPlan = `name: tiered
cluster:
  local: {brokers: 1, heap: 512m, tiered_storage: true}
topics:
  - name: backlog
    partitions: 2
    configs: {remote.storage.enable: true, local.retention.bytes: "${local_retention}", segment.bytes: 1048576}
workloads:
  - {name: writers, type: produce, topic: backlog, records: 6000, message: {size: 1000}}
  - {name: "${tier}-readers", type: consume, topic: backlog, records: 6000, start_after: writers, wait_for: "${wait_for}"}
matrix:
  - {tier: local, local_retention: -2, wait_for: none}
  - {tier: remote, local_retention: 1, wait_for: remote}
`

// TestTieredDryRun: the dry run says what the wait for the remote tier
// checks; a plan on a named cluster started without tiered storage is
// refused at cluster.name's place.
func TestTieredDryRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		plan     string
		wantCode int
		want     string // on stdout (exit 0) or stderr
	}{
		{"a plan's own cluster", tieredTestPlan, exitOK,
			"tiered storage (scenario 2): remote-readers waits (at most 2m0s) until every partition of topic backlog holding records has its oldest records only in the remote tier"},
		{"a named cluster without tiered storage", strings.Replace(tieredTestPlan, "  local: {brokers: 1, heap: 512m, tiered_storage: true}", "  name: plain", 1), exitUsage,
			`plan.yaml:3:9: cluster.name: the plan's topics use remote storage (remote.storage.enable, wait_for: remote), and cluster "plain" has no tiered storage; start one with it: kbench cluster up --name plain --tiered-storage`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, stdout, stderr := clusterTestState(t)
			// A cluster's state as cluster up leaves it, without tiered
			// storage: the dry run reads only that.
			dir := filepath.Join(st.stateDir, "plain")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			state := `{"name": "plain", "version": "4.3.1", "dir": "` + dir + `", "brokers": [{"id": 1, "port": 1, "controller_port": 2, "dir": "` + dir + `/node-1"}]}`
			if err := os.WriteFile(filepath.Join(dir, "cluster.json"), []byte(state), 0o644); err != nil {
				t.Fatal(err)
			}
			planFile := filepath.Join(t.TempDir(), "plan.yaml")
			if err := os.WriteFile(planFile, []byte(tt.plan), 0o644); err != nil {
				t.Fatal(err)
			}
			code := runKbench(t, st, "run", planFile, "--dry-run")
			got := stdout.String()
			if tt.wantCode != exitOK {
				got = stderr.String()
			}
			if code != tt.wantCode || !strings.Contains(got, tt.want) {
				t.Fatalf("exit %d; want %d and %q in:\n%s%s", code, tt.wantCode, tt.want, stdout.String(), stderr.String())
			}
		})
	}
}

// TestTieredCatchUp runs the plan on a tiered-storage cluster kbench
// starts: the remote scenario's readers wait until the backlog's oldest
// records are only in the remote tier, and the brokers say they read
// bytes from it; the local scenario's same read takes none from it. Both
// read rates sit side by side in summary.md's tiered-storage table.
func TestTieredCatchUp(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: starts a real Kafka cluster with tiered storage")
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(tieredTestPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, _ := clusterTestState(t)
	var stdout, stderr syncBuffer
	st.stdout, st.stderr = &stdout, &stderr
	st.keepPlanCluster = func(pc *cluster.Cluster) {
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
	if code := run(ctx, []string{"kbench", "run", planFile, "--out", out}, st); code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr.String())
	}
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"waiting up to 2m0s until topic backlog's oldest records are only in the remote tier", "2 of 2 partitions have their oldest records only in the remote tier"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	tests := []struct {
		scenario   int
		readers    string
		wantRemote bool
	}{{0, "local-readers", false}, {1, "remote-readers", true}}
	for _, tt := range tests {
		rep := doc.Plan.Scenarios[tt.scenario].Repeats[0]
		if rep.Status != result.StatusOK {
			t.Fatalf("%s: repeat %s (%s)", doc.Plan.Scenarios[tt.scenario].Name, rep.Status, rep.Error)
		}
		var fromRemote, out float64
		for _, b := range rep.Brokers {
			if b.Kafka == nil || b.Kafka.Topics["backlog"] == nil {
				continue
			}
			tb := b.Kafka.Topics["backlog"]
			if tb.RemoteFetchBytes != nil {
				fromRemote += *tb.RemoteFetchBytes
			}
			if tb.BytesOut != nil {
				out += *tb.BytesOut
			}
		}
		w := rep.Workloads[1]
		if w.Name != tt.readers || w.Consumer == nil || w.Consumer.Records != 6000 || w.Consumer.RecordsPerSec <= 0 {
			t.Fatalf("readers %+v; want %s reading 6000 records at a rate", w, tt.readers)
		}
		t.Logf("%s: %.0f records/s, %.1f MiB/s; %.1f MiB from the remote tier of %.1f MiB sent", tt.readers,
			w.Consumer.RecordsPerSec, w.Consumer.MiBPerSec, fromRemote/(1<<20), out/(1<<20))
		if got := fromRemote > 0; got != tt.wantRemote || out < 6000*1000 {
			t.Errorf("%s: %.0f bytes from the remote tier of %.0f sent; want some from it: %v, and the whole backlog sent", tt.readers, fromRemote, out, tt.wantRemote)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(md), "## Tiered storage") || !strings.Contains(string(md), "remote-readers") {
		t.Errorf("summary.md lacks the tiered-storage table with both readers (%v):\n%s", err, md)
	}
}
