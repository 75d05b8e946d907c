package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
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
	text := strings.NewReplacer("ACKS", acks, "REPLICATION", replication, "MINISR", minISR).Replace(faultPlan)
	return runPlanText(t, text, "kill-leader-acks-"+acks)
}

// runPlanText runs a plan whose cluster kbench starts, as runFaultPlan,
// and checks its report in a browser (skipped without one).
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

// restartPlan kills the leader of r3-0 and restarts it two seconds later,
// before the controller fences it (broker.session.timeout.ms, 9 s): the
// restarted broker cannot register until then, and the election comes
// while the restart runs. Topic r1 has one replica per partition: the one
// the killed broker led has nobody to take it over; its records wait for
// the broker's return (delivery.timeout.ms 2 min: a restart took 23 s in
// CI, past the end of sending, and the plan's 1 s flush failed them).
const restartPlan = `name: quick-restart
cluster:
  local: {brokers: 3, heap: 512m}
topics:
  - {name: r3, partitions: 3, replication: 3, configs: {min.insync.replicas: 2}}
  - {name: r1, partitions: 3, replication: 1}
workloads:
  - {name: safe, type: produce, topic: r3, properties: {acks: all}, message: {size: 100}, rate: 1k/s, duration: 40s}
  - {name: single, type: produce, topic: r1, properties: {acks: "1", delivery.timeout.ms: "120000"}, message: {size: 100}, rate: 1k/s, duration: 40s}
faults:
  - name: kill-leader
    action: kill
    target: {leader: {topic: r3, partition: 0}}
    at: 8s
  - action: restart
    target: {fault: kill-leader}
    after: kill-leader
    delay: 2s
`

// TestPlanElectionBelongsToTheKill: regression: with the restart begun
// before the killed leader was fenced, the kill's row showed no election
// and the restart's claimed it. Now the kill has the election of its r3
// partitions and says that its r1 partition, with no other replica, came
// back with its broker; the restart measures no election.
func TestPlanElectionBelongsToTheKill(t *testing.T) {
	doc, _, _ := runPlanText(t, restartPlan, "quick-restart")
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || len(rep.Faults) != 2 {
		t.Fatalf("repeat %s (%s): faults %+v", rep.Status, rep.Error, rep.Faults)
	}
	kill, restart := rep.Faults[0], rep.Faults[1]
	for _, f := range rep.Faults {
		t.Logf("%s %s (broker %d) at %.1f s: election %v %q, ISR %v %q, partitions %+v", f.Action, f.Target, f.Broker, f.AtSeconds, f.ElectionMs, f.ElectionNote, f.ISRRecoveredMs, f.ISRNote, f.Partitions)
	}
	if kill.ElectionMs == nil || *kill.ElectionMs <= 0 || len(kill.TimedOut) > 0 {
		t.Errorf("kill: election %v, timed out %v; want the election it caused", kill.ElectionMs, kill.TimedOut)
	}
	want := fmt.Sprintf("has no other replica and came back with broker %d after", kill.Broker)
	if !strings.Contains(kill.ElectionNote, want) || !strings.HasPrefix(kill.ElectionNote, "r1-") {
		t.Errorf("kill: election note %q; want its r1 partition, which %q", kill.ElectionNote, want)
	}
	for _, p := range kill.Partitions {
		switch {
		case p.From < 0: // a partition it followed, stalled under acks=all
		case p.Topic == "r3" && (p.To < 0 || p.To == p.From):
			t.Errorf("kill: %+v; want a new leader", p)
		case p.Topic == "r1" && p.To != p.From:
			t.Errorf("kill: %+v; want it back with its broker", p)
		}
	}
	if restart.Broker != kill.Broker || restart.ElectionMs != nil || restart.ElectionNote != "" || restart.ISRRecoveredMs == nil {
		t.Errorf("restart: %+v; want no election of its own and its ISR recovery", restart)
	}
	if restart.AtSeconds >= kill.AtSeconds+*kill.ElectionMs/1000 {
		t.Errorf("restart at %.1f s, election %.1f s after the kill at %.1f s; the test wants the restart first", restart.AtSeconds, *kill.ElectionMs/1000, kill.AtSeconds)
	}
}

// TestPlanPausedOnlyBrokerHealedWhenSendingEnds: regression: with the only
// broker (and controller) of a cluster paused, the heal came after the
// producer's flush had waited out its delivery timeout: the repeat took
// 2 m 15 s. The timeline now heals as soon as sending ends, and the flush
// completes.
func TestPlanPausedOnlyBrokerHealedWhenSendingEnds(t *testing.T) {
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
}

// TestPlanOnClusterUp is how a new user studies a failover: start a cluster
// with `kbench cluster up --brokers 3`, run the example plan that names it
// (cluster: {name: ...}), and kbench kills and restarts that cluster's
// leader itself. Regression: a plan could only break such a cluster through
// fault_commands written by hand. The records are checked against a
// read-back of the test's own.
func TestPlanOnClusterUp(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: starts a real 3-broker Kafka cluster")
	}
	st, stdout, stderr := clusterTestState(t)
	if code := runCluster(t, st, "up", "--name", "study", "--brokers", "3", "--heap", "512m"); code != exitOK {
		t.Fatalf("cluster up: exit %d\n%s", code, stderr)
	}
	t.Cleanup(func() { runCluster(t, st, "down", "--name", "study") })
	c, err := cluster.Load(clusterStateDir(st), "study")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var runErr syncBuffer
	st.stderr = &runErr
	stdout.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	code := run(ctx, []string{"kbench", "run", filepath.Join("..", "..", "examples", "cluster-up-failover.yaml"), "--out", out,
		"--set", "cluster.name=study", "--set", "workloads[0].duration=40s", "--set", "faults[0].at=10s", "--set", "faults[1].delay=15s"}, st)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, runErr.String())
	}
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || len(rep.Faults) != 2 || len(rep.Verification) != 1 {
		t.Fatalf("repeat %s (%s): faults %+v", rep.Status, rep.Error, rep.Faults)
	}
	kill, restart := rep.Faults[0], rep.Faults[1]
	if kill.Status != "done" || kill.ElectionMs == nil || *kill.ElectionMs <= 0 || kill.UnavailableMs == nil {
		t.Errorf("kill: %+v; want an election and an unavailability", kill)
	}
	if restart.Status != "done" || restart.Broker != kill.Broker || restart.ISRRecoveredMs == nil {
		t.Errorf("restart: %+v; want the killed broker back and its ISR recovery", restart)
	}
	// The cluster is left running, whole: every broker up, the killed one
	// under a new PID.
	for _, b := range c.Brokers {
		if alive, paused := c.Proc(b.ID); !alive || paused {
			t.Errorf("broker %d is not running after the plan", b.ID)
		}
	}
	for _, p := range kill.Partitions {
		if p.From < 0 {
			continue
		}
		if p.To < 1 || p.To == p.From {
			t.Errorf("partition %d: %+v; want a new leader", p.Partition, p)
		}
	}
	v := rep.Verification[0]
	distinct, _ := readBack(t, c, "failover")
	if !v.Passed || v.Lost != 0 || distinct-v.Unacknowledged != v.Acked || v.Acked != rep.Workloads[0].Producer.Records {
		t.Errorf("verification %+v; an independent consumer read %d distinct records", v, distinct)
	}
	if !strings.Contains(runErr.String(), `running on the local cluster "study" (3 broker(s))`) {
		t.Errorf("stderr does not say which cluster it ran on:\n%s", runErr.String())
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
