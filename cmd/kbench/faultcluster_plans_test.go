package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/verify"
)

// The plans the shared fault cluster runs (TestConformanceFaultCluster).

// readBack counts, with a consumer of the test's own, the distinct records
// of the run in the topic (by the verification header's client and
// sequence) and the copies beyond the first.
func readBack(t *testing.T, bootstrap, topic string) (distinct, extra int64) {
	t.Helper()
	seeds := strings.Split(bootstrap, ",")
	total, _ := topicRecords(t, seeds[0], topic)
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := t.Context()
	seen := map[[2]uint64]bool{}
	var read int64
	deadline := time.Now().Add(2 * time.Minute)
	for read < total {
		if time.Now().After(deadline) {
			t.Fatalf("read %d of %d records back", read, total)
		}
		fs := cl.PollRecords(ctx, 10000)
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

// examplePlans runs every example plan, scaled down with --set, and checks
// what a reviewer would: one summary row per scenario, and result.json's
// record counts equal what the topics hold.
func examplePlans(t *testing.T, fc *faultCluster) {
	tests := []struct {
		file      string
		sets      []string
		scenarios int
	}{
		{"record-size-sweep.yaml", []string{"matrix.record_size={1,100}", "repeat=2", "workloads[0].records=20k", "workloads[0].warmup=2k"}, 2},
		{"partition-study.yaml", []string{"matrix.partitions={1,10}", "workloads[0].records=10k", "workloads[0].warmup=1k", "workloads[0].rate=5k/s"}, 4},
		{"replication-study.yaml", []string{"repeat=1", "workloads[0].records=20k", "workloads[0].warmup=2k"}, 5},
		{"virtual-users.yaml", []string{"workloads[0].duration=2s", "workloads[0].warmup=500ms"}, 4},
		{"catch-up.yaml", []string{"workloads[0].duration=4s", "workloads[1].start_after=2s", "workloads[1].timeout=3s"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out := t.TempDir()
			st, _, stderr := fc.state(t)
			args := []string{"run", filepath.Join("..", "..", "examples", tt.file), "--out", out, "--set", "cluster.bootstrap=" + fc.bootstrap}
			for _, s := range tt.sets {
				args = append(args, "--set", s)
			}
			if code := runKbench(t, st, args...); code != exitOK {
				t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
			}
			doc, err := result.Read(filepath.Join(out, "result.json"))
			if err != nil {
				t.Fatal(err)
			}
			if doc.Plan == nil || len(doc.Plan.Scenarios) != tt.scenarios {
				t.Fatalf("result.json has %v scenarios, want %d", doc.Plan, tt.scenarios)
			}
			// Topics are recreated per repeat: the last run on each topic is
			// what it holds.
			last := map[string]int64{}
			for _, sc := range doc.Plan.Scenarios {
				if len(sc.Repeats) == 0 {
					t.Fatalf("scenario %s has no repeats", sc.Name)
				}
				rep := sc.Repeats[len(sc.Repeats)-1]
				for _, w := range rep.Workloads {
					if w.Type == "consume" {
						if w.Consumer == nil || w.Consumer.Records == 0 {
							t.Fatalf("scenario %s workload %s: nothing consumed", sc.Name, w.Name)
						}
						continue
					}
					if w.Producer == nil || w.Topic == nil {
						t.Fatalf("scenario %s workload %s: no producer result or topic", sc.Name, w.Name)
					}
					last[w.Topic.Name] = w.Producer.Records
				}
			}
			// With acks=1 the high watermark follows the acknowledgements
			// once the followers caught up: wait for it (bounded).
			for topic, records := range last {
				var held int64
				waitFor(t, 30*time.Second, func() bool {
					held = endOffsetSum(t, strings.Split(fc.bootstrap, ",")[0], topic)
					return held >= records
				})
				if held != records {
					t.Errorf("topic %s holds %d records; result.json says %d were acknowledged", topic, held, records)
				}
			}
			checkSummaryFiles(t, out, doc, tt.scenarios)
			checkReport(t, out, strings.TrimSuffix(tt.file, ".yaml"))
		})
	}
}

// leaderKillVerified is how a new user studies a failover (the example
// plan for a cluster from `kbench cluster up`), and the fault issue's
// judged run: with acks=all, replication 3 and min.insync.replicas 2,
// killing the leader mid-run is measured (election, unavailability, ISR
// recovery after the restart), loses no acknowledged record (an
// independent read-back agrees), and leaves every broker running.
// Regression: a plan could only break such a cluster through
// fault_commands written by hand.
func leaderKillVerified(t *testing.T, fc *faultCluster) {
	// The controller fences a killed broker after broker.session.timeout.ms
	// (9 s): the restart comes 12 s after the kill, and 15 s of sending
	// follow it for the in-sync replica set to fill.
	doc, stderr, out := fc.runPlanFile(t, filepath.Join("..", "..", "examples", "cluster-up-failover.yaml"),
		"--set", "cluster.name="+faultClusterName, "--set", "workloads[0].duration=35s", "--set", "faults[0].at=8s", "--set", "faults[1].delay=12s")
	checkReport(t, out, "cluster-up-failover")
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || len(rep.Faults) != 2 || len(rep.Verification) != 1 {
		t.Fatalf("repeat %s (%s): faults %+v, %d verifications", rep.Status, rep.Error, rep.Faults, len(rep.Verification))
	}
	kill, restart := rep.Faults[0], rep.Faults[1]
	if kill.Status != "done" || kill.Broker < 1 || kill.ElectionMs == nil || *kill.ElectionMs <= 0 || kill.UnavailableMs == nil || *kill.UnavailableMs <= 0 {
		t.Errorf("kill: %+v; want an election time and an unavailability window", kill)
	}
	if kill.ElectionMs != nil && kill.UnavailableMs != nil && *kill.UnavailableMs < *kill.ElectionMs/2 {
		t.Errorf("unavailable %.0f ms, election %.0f ms: producers cannot write before a leader exists", *kill.UnavailableMs, *kill.ElectionMs)
	}
	if restart.Status != "done" || restart.Broker != kill.Broker || restart.ISRRecoveredMs == nil || *restart.ISRRecoveredMs <= 0 {
		t.Errorf("restart: %+v; want the killed broker back and an ISR recovery time", restart)
	}
	for _, p := range kill.Partitions {
		if p.From >= 0 && (p.To < 1 || p.To == p.From) {
			t.Errorf("partition %d: %+v; want a new leader", p.Partition, p)
		}
	}
	// The cluster is left running, whole: every broker up, the killed one
	// under a new PID.
	c := fc.load(t)
	for _, b := range c.Brokers {
		if alive, paused := c.Proc(b.ID); !alive || paused {
			t.Errorf("broker %d is not running after the plan", b.ID)
		}
	}
	v, w := rep.Verification[0], rep.Workloads[0]
	if !v.Passed || v.Lost != 0 || v.Acks != "all" || v.Acked != w.Producer.Records || v.Acked < 40_000 {
		t.Fatalf("verification %+v; producer acknowledged %d; want every acknowledged record read back", v, w.Producer.Records)
	}
	distinct, _ := readBack(t, fc.bootstrap, "failover")
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

// restartPlan kills the leader of r3-0 and restarts it two seconds later,
// before the controller fences it (broker.session.timeout.ms, 9 s): the
// restarted broker cannot register until then, and the election comes
// while the restart runs. Topic r1 has one replica per partition: the one
// the killed broker led has nobody to take it over; its records wait for
// the broker's return (delivery.timeout.ms 2 min: a restart took 23 s in
// CI, past the end of sending, and the plan's 1 s flush failed them).
const restartPlan = `name: quick-restart
cluster: {name: faults}
topics:
  - {name: r3, partitions: 3, replication: 3, configs: {min.insync.replicas: 2}}
  - {name: r1, partitions: 3, replication: 1}
workloads:
  - {name: safe, type: produce, topic: r3, properties: {acks: all}, message: {size: 100}, rate: 1k/s, duration: 30s}
  - {name: single, type: produce, topic: r1, properties: {acks: "1", delivery.timeout.ms: "120000"}, message: {size: 100}, rate: 1k/s, duration: 30s}
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

// electionBelongsToTheKill: regression: with the restart begun before the
// killed leader was fenced, the kill's row showed no election and the
// restart's claimed it. Now the kill has the election of its r3
// partitions and says that its r1 partition, with no other replica, came
// back with its broker; the restart measures no election.
func electionBelongsToTheKill(t *testing.T, fc *faultCluster) {
	doc, _, _ := fc.runPlan(t, restartPlan)
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Status != result.StatusOK || len(rep.Faults) != 2 {
		t.Fatalf("repeat %s (%s): faults %+v", rep.Status, rep.Error, rep.Faults)
	}
	kill, restart := rep.Faults[0], rep.Faults[1]
	for _, f := range rep.Faults {
		t.Logf("%s %s (broker %d) at %.1f s: election %v %q, ISR %v %q, partitions %+v", f.Action, f.Target, f.Broker, f.AtSeconds, f.ElectionMs, f.ElectionNote, f.ISRRecoveredMs, f.ISRNote, f.Partitions)
	}
	if kill.ElectionMs == nil || *kill.ElectionMs <= 0 || len(kill.TimedOut) > 0 {
		t.Fatalf("kill: election %v, timed out %v; want the election it caused", kill.ElectionMs, kill.TimedOut)
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

// leaderPartitionPlan cuts the leader of cut-all's partition 0 off from
// the other brokers and the controller quorum for 20 s, while the
// producers still reach it: one writes with acks=all and
// min.insync.replicas 2, one with acks=1 to a topic whose partitions the
// cut broker leads one of (three partitions on three brokers: each leads
// one of each topic).
const leaderPartitionPlan = `name: leader-partition
cluster: {name: faults}
topics:
  - {name: cut-all, partitions: 3, replication: 3, configs: {min.insync.replicas: 2}}
  - {name: cut-one, partitions: 3, replication: 3, configs: {min.insync.replicas: 1}}
workloads:
  - {name: acks-all, type: produce, topic: cut-all, properties: {acks: all}, message: {size: 100}, rate: 500/s, duration: 40s}
  - {name: acks-one, type: produce, topic: cut-one, properties: {acks: "1"}, message: {size: 100}, rate: 500/s, duration: 40s}
faults:
  - action: partition
    between: [{leader: {topic: cut-all, partition: 0}}, [brokers, controllers]]
    at: 8s
    duration: 20s
`

// leaderPartitionVerified is the network fault issue's judged run: a
// leader cut off from the quorum and the other brokers keeps
// acknowledging acks=1 records that the new leader never had; kbench
// counts them lost, and a consumer of the test's own agrees, records and
// copies alike; with acks=all and min.insync.replicas 2 nothing is lost.
// Regression (issue 41): four of seven acks=all runs saw no election, as
// the quorum's followers reconnected to the cut leader past the proxies
// when it was the active controller; the report says what happened in
// words.
func leaderPartitionVerified(t *testing.T, fc *faultCluster) {
	doc, stderr, out := fc.runPlan(t, leaderPartitionPlan)
	if md, err := os.ReadFile(filepath.Join(out, "summary.md")); err != nil || !strings.Contains(string(md), "network proxies") {
		t.Errorf("summary.md does not say the run went through the network proxies (%v)", err)
	}
	if env := doc.Plan.Environment; env == nil || !env.NetworkProxies {
		t.Errorf("environment %+v; want the network proxies stated", env)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	for _, f := range rep.Faults {
		t.Logf("%s %s (broker %d) at %.1f s: election %s %q, unavailable %s, ISR %s %q, output %q", f.Action, f.Target, f.Broker, f.AtSeconds, msText(f.ElectionMs), f.ElectionNote, msText(f.UnavailableMs), msText(f.ISRRecoveredMs), f.ISRNote, f.Output)
	}
	if len(rep.Verification) != 2 || rep.Verification[0].Error != "" || rep.Verification[1].Error != "" || len(rep.Faults) != 1 {
		t.Fatalf("repeat %s (%s): faults %+v, verification %+v\n%s", rep.Status, rep.Error, rep.Faults, rep.Verification, stderr)
	}
	f := rep.Faults[0]
	if f.Status != "done" || f.Broker < 1 || f.ISRRecoveredMs == nil {
		t.Errorf("partition %+v; want done on the leader and the ISR recovery after the heal\n%s", f, stderr)
	}
	if f.ElectionMs == nil {
		t.Errorf("partition %+v: no election seen\n%s", f, stderr)
	}
	if want := "leader cut from the other brokers and the controller quorum: fenced, new leaders elected after "; !strings.HasPrefix(f.Outcome, want) {
		t.Errorf("outcome %q; want it to start %q", f.Outcome, want)
	}
	all, one := rep.Verification[0], rep.Verification[1]
	if all.Workload != "acks-all" || one.Workload != "acks-one" {
		t.Fatalf("verifications of %q and %q, want acks-all then acks-one", all.Workload, one.Workload)
	}
	distinct, _ := readBack(t, fc.bootstrap, "cut-all")
	t.Logf("acks=all: kbench %d acknowledged, %d lost, %d unacknowledged; read back %d distinct", all.Acked, all.Lost, all.Unacknowledged, distinct)
	if all.Lost != 0 || !all.Passed || all.Acked < 10_000 {
		t.Errorf("acks=all verification %+v; want every acknowledged record kept", all)
	}
	if distinct-all.Unacknowledged != all.Acked {
		t.Errorf("acks=all: independent consumer: %d distinct, kbench: %d acknowledged + %d unacknowledged", distinct, all.Acked, all.Unacknowledged)
	}
	distinct, extra := readBack(t, fc.bootstrap, "cut-one")
	t.Logf("acks=1: kbench %d acknowledged, %d lost, %d duplicated, %d unacknowledged; read back %d distinct, %d extra copies", one.Acked, one.Lost, one.Duplicated, one.Unacknowledged, distinct, extra)
	if one.Lost == 0 || !one.Passed {
		t.Errorf("acks=1 verification %+v; want acknowledged records lost (what acks=1 allows, not a failure)", one)
	}
	if lost := one.Acked - (distinct - one.Unacknowledged); lost != one.Lost {
		t.Errorf("acks=1: kbench: %d lost; independent consumer: %d acknowledged − (%d distinct − %d unacknowledged) = %d", one.Lost, one.Acked, distinct, one.Unacknowledged, lost)
	}
	if extra != one.Duplicated {
		t.Errorf("acks=1: kbench: %d duplicated; independent consumer: %d extra copies", one.Duplicated, extra)
	}
}

func msText(ms *float64) string {
	if ms == nil {
		return "none"
	}
	return fmt.Sprintf("%.0f ms", *ms)
}

// replicaDelayPlan delays every replication connection by ${latency} each
// way, from 1 s in (before the 2 s warm-up ends), under an acks=all and an
// acks=1 producer side by side: two short repeats each.
const replicaDelayPlan = `name: replica-delay
cluster: {name: faults}
topics:
  - {name: "delay-${latency}-all", partitions: 3, replication: 3, configs: {min.insync.replicas: 2}}
  - {name: "delay-${latency}-one", partitions: 3, replication: 3, configs: {min.insync.replicas: 2}}
workloads:
  - {name: acks-all, type: produce, topic: "delay-${latency}-all", properties: {acks: all, linger.ms: "0"}, message: {size: 100}, rate: 500/s, duration: 8s, warmup: 2s, verify: false}
  - {name: acks-one, type: produce, topic: "delay-${latency}-one", properties: {acks: "1", linger.ms: "0"}, message: {size: 100}, rate: 500/s, duration: 8s, warmup: 2s, verify: false}
faults:
  - action: delay
    between: [brokers, brokers]
    latency: ${latency}
    at: 1s
matrix:
  latency: [0, 20ms]
repeat: 2
`

// replicaDelay is the network fault issue's judged latency run: 20 ms
// between brokers raises the median acks=all publish p50 by at least
// 20 ms (a follower's fetch crosses the link both ways before the high
// watermark moves), while acks=1, answered before replication, is not
// slowed by 5 ms or more. acks=1 may get faster: on two cores shared by
// three brokers, slower followers' fetches leave the leader more CPU (CI
// runs: 11.96 and 27.61 ms without the delay, 1.45 ms with it).
func replicaDelay(t *testing.T, fc *faultCluster) {
	doc, stderr, _ := fc.runPlan(t, replicaDelayPlan)
	p50 := map[string]float64{} // by "latency/workload"
	for _, sc := range doc.Plan.Scenarios {
		if sc.Aggregate == nil {
			t.Fatalf("scenario %s: no aggregate\n%s", sc.Name, stderr)
		}
		for _, rep := range sc.Repeats {
			for _, f := range rep.Faults {
				if f.Status != "done" {
					t.Errorf("scenario %s: fault %+v", sc.Name, f)
				}
			}
		}
		for _, w := range sc.Aggregate.Workloads {
			if w.P50Ms == nil || w.P50Ms.N != 2 {
				t.Fatalf("scenario %s, workload %s: p50 %+v; want 2 repeats\n%s", sc.Name, w.Name, w.P50Ms, stderr)
			}
			p50[sc.Name+"/"+w.Name] = w.P50Ms.Median
			t.Logf("%s %s: publish p50 median %.2f ms (repeats %.2f to %.2f)", sc.Name, w.Name, w.P50Ms.Median, w.P50Ms.Min, w.P50Ms.Max)
		}
	}
	all0, all20 := p50["latency=0/acks-all"], p50["latency=20ms/acks-all"]
	one0, one20 := p50["latency=0/acks-one"], p50["latency=20ms/acks-one"]
	if len(p50) != 4 || all20-all0 < 20 {
		t.Errorf("acks=all p50 %.2f ms → %.2f ms with 20 ms between brokers; want at least 20 ms more (%v)", all0, all20, p50)
	}
	if d := one20 - one0; d >= 5 {
		t.Errorf("acks=1 p50 %.2f ms → %.2f ms with 20 ms between brokers; want it to move less than 5 ms", one0, one20)
	}
}

// zoneDelayPlan puts brokers 1 and 2 in zone a and broker 3 in zone b,
// the clients in neither, and delays the link between the zones by
// ${latency} each way from 1 s in (before the 2 s warm-up ends), for
// acks=1 and acks=all: three short repeats each, at 200 records/s (500/s
// kept three proxied brokers busy enough on the shared two cores that
// other runs' load decided the medians). A first scenario only warms the
// cluster up: on a loaded machine the brokers' JIT took more than a
// minute, and the first scenarios measured it (acks=all p50 642, 954 and
// 1620 ms without a delay in three runs, 314-408 ms with it, later). The
// scenarios compared run one after the other (acks outer, latency inner),
// so a drift in the machine's load touches both sides of a comparison.
const zoneDelayPlan = `name: zone-delay
cluster: {name: faults}
network:
  zones: {a: [1, 2], b: [3]}
topics:
  - {name: "zone-${latency}-${acks}-${run}", partitions: 3, replication: 3, configs: {min.insync.replicas: 2}}
workloads:
  - name: writer
    type: produce
    topic: zone-${latency}-${acks}-${run}
    properties: {acks: "${acks}", linger.ms: "0"}
    message: {size: 100}
    rate: 200/s
    duration: ${run}
    warmup: 2s
    verify: false
faults:
  - action: delay
    between: [a, b]
    latency: ${latency}
    at: 1s
matrix:
  - {acks: all, latency: 0, run: 10s}
  - {acks: all, latency: 0, run: 6s}
  - {acks: all, latency: 20ms, run: 6s}
  - {acks: "1", latency: 0, run: 6s}
  - {acks: "1", latency: 20ms, run: 6s}
repeat: 3
`

// zoneDelay is issue 41's judged run for named zones: 20 ms each
// way between zone a (brokers 1, 2) and zone b (broker 3) raises the
// median (of 3 repeats) acks=all publish p50 by at least 20 ms (every
// partition has a replica across the zones: a follower in b fetches from
// a leader in a, or both followers in a from the leader in b), while
// acks=1, answered by the leader before replication to clients in no
// zone, moves less than 5 ms. The run takes about 3 minutes here; the
// bound is runPlan's 6 minutes, so a machine twice as slow still fits.
func zoneDelay(t *testing.T, fc *faultCluster) {
	// A latency measurement (3 minutes, medians of 3 runs) that a loaded
	// machine turns into noise: it failed six times at load 15-45 and
	// passed on a quiet one. Run it by hand (docs/faults.md, "Zones"):
	// KBENCH_MEASURE=1 go test -run 'TestConformanceFaultCluster/zone' ./cmd/kbench/
	if os.Getenv("KBENCH_MEASURE") == "" {
		t.Skip("a latency measurement: set KBENCH_MEASURE=1 on a quiet machine")
	}
	doc, stderr, _ := fc.runPlan(t, zoneDelayPlan)
	p50 := map[string]float64{}
	for _, sc := range doc.Plan.Scenarios {
		if sc.Aggregate == nil || sc.Aggregate.P50Ms.N != 3 {
			t.Fatalf("scenario %s: aggregate %+v; want 3 repeats\n%s", sc.Name, sc.Aggregate, stderr)
		}
		for _, rep := range sc.Repeats {
			for _, f := range rep.Faults {
				if f.Status != "done" || f.Target != "zone a ↔ zone b" {
					t.Errorf("scenario %s: fault %+v; want done on zone a ↔ zone b", sc.Name, f)
				}
				// Brokers 1 and 2 each reach broker 3's broker and
				// controller, and back: 8 proxies, none of the clients'
				// (the delay's own row; its heal at the end has a row of
				// its own).
				if f.Name != "heal" && strings.Contains(sc.Name, "20ms") && !strings.Contains(f.Output, "on 8 proxies") {
					t.Errorf("scenario %s: fault output %q; want the delay on the 8 proxies between the zones", sc.Name, f.Output)
				}
			}
		}
		p50[sc.Name] = sc.Aggregate.P50Ms.Median
		t.Logf("%s: publish p50 median %.2f ms (repeats %.2f to %.2f)", sc.Name, sc.Aggregate.P50Ms.Median, sc.Aggregate.P50Ms.Min, sc.Aggregate.P50Ms.Max)
	}
	all0, all20 := p50["acks=all latency=0 run=6s"], p50["acks=all latency=20ms run=6s"]
	one0, one20 := p50["acks=1 latency=0 run=6s"], p50["acks=1 latency=20ms run=6s"]
	if len(p50) != 5 || all20-all0 < 20 {
		t.Errorf("acks=all p50 %.2f ms → %.2f ms with 20 ms between the zones; want at least 20 ms more (%v)", all0, all20, p50)
	}
	if d := one20 - one0; len(p50) != 5 || d >= 5 {
		t.Errorf("acks=1 p50 %.2f ms → %.2f ms with 20 ms between the zones; want it to move less than 5 ms (%v)", one0, one20, p50)
	}
}
