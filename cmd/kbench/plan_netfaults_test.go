package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// leaderPartitionPlan cuts the leader of partition 0 off from the other
// brokers and the controller quorum for 20 s, while the producer still
// reaches it, on a 3-broker cluster with network proxies that kbench
// starts itself.
const leaderPartitionPlan = `name: leader-partition
cluster:
  local: {brokers: 3, heap: 512m}
topics:
  - {name: cut, partitions: 3, replication: 3, configs: {min.insync.replicas: MINISR}}
workloads:
  - name: writer
    type: produce
    topic: cut
    properties: {acks: "ACKS"}
    message: {size: 100}
    rate: 500/s
    duration: 40s
faults:
  - action: partition
    between: [{leader: {topic: cut, partition: 0}}, [brokers, controllers]]
    at: 8s
    duration: 20s
`

func runLeaderPartition(t *testing.T, acks, minISR string) (result.Repeat, int64, int64, string) {
	t.Helper()
	text := strings.NewReplacer("ACKS", acks, "MINISR", minISR).Replace(leaderPartitionPlan)
	// The report's charts are checked by the broker fault tests (in a
	// browser, where there is one); here the numbers.
	doc, c, stderr, out := runPlanOnly(t, text)
	if md, err := os.ReadFile(filepath.Join(out, "summary.md")); err != nil || !strings.Contains(string(md), "network proxies") {
		t.Errorf("summary.md does not say the run went through the network proxies (%v)", err)
	}
	if c.Network == nil {
		t.Fatal("a plan with network faults started a cluster without network proxies")
	}
	if env := doc.Plan.Environment; env == nil || !env.NetworkProxies {
		t.Errorf("environment %+v; want the network proxies stated", env)
	}
	rep := doc.Plan.Scenarios[0].Repeats[0]
	for _, f := range rep.Faults {
		t.Logf("%s %s (broker %d) at %.1f s: election %s %q, unavailable %s, ISR %s %q, output %q", f.Action, f.Target, f.Broker, f.AtSeconds, msText(f.ElectionMs), f.ElectionNote, msText(f.UnavailableMs), msText(f.ISRRecoveredMs), f.ISRNote, f.Output)
	}
	if len(rep.Verification) != 1 || rep.Verification[0].Error != "" || len(rep.Faults) != 1 {
		t.Fatalf("repeat %s (%s): faults %+v, verification %+v\n%s", rep.Status, rep.Error, rep.Faults, rep.Verification, stderr)
	}
	f := rep.Faults[0]
	if f.Status != "done" || f.Broker < 1 || f.ISRRecoveredMs == nil {
		t.Errorf("partition %+v; want done on the leader and the ISR recovery after the heal\n%s", f, stderr)
	}
	// The leader is cut from the quorum too: the controller fences it and
	// elects. Regression (issue 41): four of seven acks=all runs saw no
	// election, as the quorum's followers reconnected to the cut leader
	// past the proxies when it was the active controller; the report
	// says what happened in words.
	if f.ElectionMs == nil {
		t.Errorf("partition %+v: no election seen\n%s", f, stderr)
	}
	if want := "leader cut from the other brokers and the controller quorum: fenced, new leaders elected after "; !strings.HasPrefix(f.Outcome, want) {
		t.Errorf("outcome %q; want it to start %q", f.Outcome, want)
	}
	distinct, extra := readBack(t, c, "cut")
	v := rep.Verification[0]
	t.Logf("kbench: %d acknowledged, %d lost, %d duplicated, %d unacknowledged; read back: %d distinct, %d extra copies", v.Acked, v.Lost, v.Duplicated, v.Unacknowledged, distinct, extra)
	return rep, distinct, extra, stderr
}

func msText(ms *float64) string {
	if ms == nil {
		return "none"
	}
	return fmt.Sprintf("%.0f ms", *ms)
}

// TestPlanLeaderPartitionAcksOne is the network fault issue's judged run:
// a leader cut off from the quorum and the other brokers keeps
// acknowledging acks=1 records that the new leader never had; kbench
// counts them lost, and a consumer of the test's own agrees.
func TestPlanLeaderPartitionAcksOne(t *testing.T) {
	rep, distinct, extra, _ := runLeaderPartition(t, "1", "1")
	v := rep.Verification[0]
	if v.Lost == 0 || !v.Passed {
		t.Errorf("verification %+v; want acknowledged records lost (what acks=1 allows, not a failure)", v)
	}
	if lost := v.Acked - (distinct - v.Unacknowledged); lost != v.Lost {
		t.Errorf("kbench: %d lost; independent consumer: %d acknowledged − (%d distinct − %d unacknowledged) = %d", v.Lost, v.Acked, distinct, v.Unacknowledged, lost)
	}
	if extra != v.Duplicated {
		t.Errorf("kbench: %d duplicated; independent consumer: %d extra copies", v.Duplicated, extra)
	}
}

// TestPlanLeaderPartitionAcksAll: the same cut with acks=all and
// min.insync.replicas 2 loses nothing.
func TestPlanLeaderPartitionAcksAll(t *testing.T) {
	rep, distinct, _, _ := runLeaderPartition(t, "all", "2")
	v := rep.Verification[0]
	if v.Lost != 0 || !v.Passed || v.Acked < 10_000 {
		t.Errorf("verification %+v; want every acknowledged record kept", v)
	}
	if distinct-v.Unacknowledged != v.Acked {
		t.Errorf("independent consumer: %d distinct, kbench: %d acknowledged + %d unacknowledged", distinct, v.Acked, v.Unacknowledged)
	}
}

// replicaDelayPlan delays every replication connection by ${latency} each
// way, from 1 s in (before the 2 s warm-up ends), for acks=1 and acks=all:
// three short repeats each.
const replicaDelayPlan = `name: replica-delay
cluster:
  local: {brokers: 3, heap: 512m}
topics:
  - {name: "delay-${latency}-${acks}", partitions: 3, replication: 3, configs: {min.insync.replicas: 2}}
workloads:
  - name: writer
    type: produce
    topic: delay-${latency}-${acks}
    properties: {acks: "${acks}", linger.ms: "0"}
    message: {size: 100}
    rate: 500/s
    duration: 8s
    warmup: 2s
    verify: false
faults:
  - action: delay
    between: [brokers, brokers]
    latency: ${latency}
    at: 1s
matrix:
  latency: [0, 20ms]
  acks: [all, "1"]
repeat: 3
`

// TestPlanReplicaDelay is the network fault issue's judged latency run:
// 20 ms between brokers raises the median (of 3 repeats) acks=all publish
// p50 by at least 20 ms (a follower's fetch crosses the link both ways
// before the high watermark moves), while acks=1, answered before
// replication, is not slowed by 5 ms or more. On a machine shared with other test
// runs the acks=1 bound is the fragile one; the matrix runs acks=all first
// because the plan's first scenario meets a cold cluster (its acks=1 p50
// was 27.6 ms cold against 1.5 ms warm in a CI run), and acks=all's bound
// has room (20 ms between brokers added about 210 ms).
func TestPlanReplicaDelay(t *testing.T) {
	doc, _, stderr, _ := runPlanOnly(t, replicaDelayPlan)
	p50 := map[string]float64{}
	for _, sc := range doc.Plan.Scenarios {
		if sc.Aggregate == nil || sc.Aggregate.P50Ms.N != 3 {
			t.Fatalf("scenario %s: aggregate %+v; want 3 repeats\n%s", sc.Name, sc.Aggregate, stderr)
		}
		for _, rep := range sc.Repeats {
			for _, f := range rep.Faults {
				if f.Status != "done" {
					t.Errorf("scenario %s: fault %+v", sc.Name, f)
				}
			}
		}
		p50[sc.Name] = sc.Aggregate.P50Ms.Median
		t.Logf("%s: publish p50 median %.2f ms (repeats %.2f to %.2f)", sc.Name, sc.Aggregate.P50Ms.Median, sc.Aggregate.P50Ms.Min, sc.Aggregate.P50Ms.Max)
	}
	all0, all20 := p50["latency=0 acks=all"], p50["latency=20ms acks=all"]
	one0, one20 := p50["latency=0 acks=1"], p50["latency=20ms acks=1"]
	if len(p50) != 4 || all20-all0 < 20 {
		t.Errorf("acks=all p50 %.2f ms → %.2f ms with 20 ms between brokers; want at least 20 ms more (%v)", all0, all20, p50)
	}
	// acks=1 must not be slowed by the replication delay. It may get
	// faster: on two cores shared by three brokers, slower followers'
	// fetches leave the leader more CPU (CI runs: 11.96 and 27.61 ms
	// without the delay, 1.45 ms with it).
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
cluster:
  local: {brokers: 3, heap: 512m}
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

// TestPlanZoneDelay is issue 41's judged run for named zones: 20 ms each
// way between zone a (brokers 1, 2) and zone b (broker 3) raises the
// median (of 3 repeats) acks=all publish p50 by at least 20 ms (every
// partition has a replica across the zones: a follower in b fetches from
// a leader in a, or both followers in a from the leader in b), while
// acks=1, answered by the leader before replication to clients in no
// zone, moves less than 5 ms. The run takes about 3 minutes here; the
// test's bound is runPlanOnly's 6 minutes, so a machine twice as slow
// still fits.
func TestPlanZoneDelay(t *testing.T) {
	doc, _, stderr, _ := runPlanOnly(t, zoneDelayPlan)
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
