package main

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/verify"
)

// faultPlan kills the leader of partition 0 ten seconds into a fixed-rate
// run and restarts it twenty seconds later (the controller fences a killed
// broker after broker.session.timeout.ms, 9 s), on a 3-broker cluster
// kbench starts itself.
const faultPlan = `name: kill-leader
cluster:
  local: {brokers: 3, heap: 512m}
topics:
  - {name: failover, partitions: 3, replication: REPLICATION, configs: {min.insync.replicas: MINISR}}
workloads:
  - name: writer
    type: produce
    topic: failover
    properties: {acks: "ACKS"}
    message: {size: 100}
    rate: 2k/s
    duration: 50s
faults:
  - name: kill-leader
    action: kill
    target: {leader: {topic: failover, partition: 0}}
    at: 10s
  - action: restart
    target: {fault: kill-leader}
    after: kill-leader
    delay: 20s
`

// runFaultPlan runs the plan through the command line and returns its
// result, the test's copy of the plan's cluster (still running) and stderr.
func runFaultPlan(t *testing.T, acks, replication, minISR string) (*result.Document, *cluster.Cluster, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts a real 3-broker Kafka cluster")
	}
	text := strings.NewReplacer("ACKS", acks, "REPLICATION", replication, "MINISR", minISR).Replace(faultPlan)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "kill-leader.yaml")
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
	if err != nil || !strings.Contains(string(md), "## Faults") || !strings.Contains(string(md), "## Verification") {
		t.Errorf("summary.md lacks the faults and verification tables (%v):\n%s", err, md)
	}
	checkReport(t, out, "kill-leader-acks-"+acks)
	return doc, c, stderr.String()
}

// readBack counts, with a consumer of the test's own, the distinct records
// of the run in the topic (by the verification header's client and
// sequence) and the copies beyond the first.
func readBack(t *testing.T, c *cluster.Cluster, topic string) (distinct, extra int64) {
	t.Helper()
	total, _ := topicRecords(t, strings.Split(c.Bootstrap(), ",")[0], topic)
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	seen := map[[2]uint64]bool{}
	var read int64
	for read < total {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records back: %v", read, total, ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			read++
			for _, h := range r.Headers {
				if h.Key == verify.Header && len(h.Value) == 20 {
					id := [2]uint64{uint64(binary.BigEndian.Uint32(h.Value[8:])), binary.BigEndian.Uint64(h.Value[12:])}
					if seen[id] {
						extra++
					}
					seen[id] = true
				}
			}
		})
	}
	return int64(len(seen)), extra
}

// TestPlanKillLeaderAcksAll is the fault issue's judged run: with acks=all,
// replication 3 and min.insync.replicas 2, killing the leader mid-run is
// measured (election, unavailability, ISR recovery after the restart) and
// loses no acknowledged record, which a consumer of the test's own
// confirms.
func TestPlanKillLeaderAcksAll(t *testing.T) {
	doc, c, stderr := runFaultPlan(t, "all", "3", "2")
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || len(rep.Faults) < 2 || len(rep.Verification) != 1 {
		t.Fatalf("repeat %s (%s): %d faults, %d verifications", rep.Status, rep.Error, len(rep.Faults), len(rep.Verification))
	}
	kill, restart := rep.Faults[0], rep.Faults[1]
	if kill.Status != "done" || kill.Broker < 1 || kill.ElectionMs == nil || *kill.ElectionMs <= 0 || kill.UnavailableMs == nil || *kill.UnavailableMs <= 0 {
		t.Errorf("kill: %+v; want an election time and an unavailability window", kill)
	}
	if restart.Status != "done" || restart.Broker != kill.Broker || restart.ISRRecoveredMs == nil || *restart.ISRRecoveredMs <= 0 {
		t.Errorf("restart: %+v; want the killed broker back and an ISR recovery time", restart)
	}
	if kill.ElectionMs != nil && kill.UnavailableMs != nil && *kill.UnavailableMs < *kill.ElectionMs/2 {
		t.Errorf("unavailable %.0f ms, election %.0f ms: producers cannot write before a leader exists", *kill.UnavailableMs, *kill.ElectionMs)
	}
	v := rep.Verification[0]
	w := rep.Workloads[0]
	if !v.Passed || v.Lost != 0 || v.Acks != "all" || v.Acked != w.Producer.Records || v.Acked < 90_000 {
		t.Fatalf("verification %+v; producer acknowledged %d; want every acknowledged record read back", v, w.Producer.Records)
	}
	distinct, _ := readBack(t, c, "failover")
	if distinct < v.Acked {
		t.Errorf("an independent consumer read %d distinct records; %d were acknowledged", distinct, v.Acked)
	}
	if distinct-v.Unacknowledged != v.Acked {
		t.Errorf("independent consumer: %d distinct, kbench: %d acknowledged + %d unacknowledged", distinct, v.Acked, v.Unacknowledged)
	}
	if len(v.Unseen) == 0 {
		t.Error("no acknowledged-not-yet-seen series")
	}
	for _, want := range []string{"kill broker", "new leader after", "in-sync replica set is full after"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestPlanKillLeaderAcksOne: with acks=1 and one replica, kbench reports
// what really happened, and its loss count matches what a consumer of the
// test's own finds missing.
func TestPlanKillLeaderAcksOne(t *testing.T) {
	doc, c, _ := runFaultPlan(t, "1", "1", "1")
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if len(rep.Verification) != 1 || rep.Verification[0].Error != "" {
		t.Fatalf("repeat %s (%s): verification %+v", rep.Status, rep.Error, rep.Verification)
	}
	v := rep.Verification[0]
	distinct, extra := readBack(t, c, "failover")
	if lost := v.Acked - (distinct - v.Unacknowledged); lost != v.Lost {
		t.Errorf("kbench: %d lost; independent consumer: %d acknowledged − (%d distinct − %d unacknowledged) = %d", v.Lost, v.Acked, distinct, v.Unacknowledged, lost)
	}
	if extra != v.Duplicated {
		t.Errorf("kbench: %d duplicated; independent consumer: %d extra copies", v.Duplicated, extra)
	}
	if !v.Passed {
		t.Errorf("acks=1: %+v; a loss is what acks=1 allows, not a failure", v)
	}
	if kill := rep.Faults[0]; kill.Status != "done" || len(kill.TimedOut) > 0 {
		t.Errorf("kill: %+v", kill)
	}
}
