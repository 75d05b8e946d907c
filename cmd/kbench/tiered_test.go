package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tieredTestPlan compares a catch-up read from local segments with the
// same read from the remote tier, on a one-broker tiered-storage cluster
// kbench starts (study's TestTieredCatchUp runs its twin on real Kafka).
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
