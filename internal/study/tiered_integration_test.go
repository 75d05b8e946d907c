package study

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
)

// tieredITPlan compares a catch-up read from local segments with the same
// read from the remote tier, on a one-broker tiered-storage cluster kbench
// starts: 6 MB on 1 MiB segments, 2 partitions.
const tieredITPlan = `name: tiered
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

// lockedBuffer is a buffer the study's goroutines write to at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTieredCatchUp runs the plan on a tiered-storage cluster kbench
// starts (the plan's cluster.local, as kbench run starts it): the remote
// scenario's readers wait until the backlog's oldest records are only in
// the remote tier, and the brokers say they read bytes from it; the local
// scenario's same read takes none from it. Real Kafka; one cluster.
func TestTieredCatchUp(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts a real Kafka cluster with tiered storage")
	}
	p, err := plan.Parse("plan.yaml", []byte(tieredITPlan), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, err := p.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	var progress lockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard
	defer cancel()
	opts := []cluster.Opt{cluster.WithStateDir(t.TempDir()), cluster.WithStopOnExit(true), cluster.WithLog(&progress)}
	if home := os.Getenv("KBENCH_HOME"); home != "" {
		opts = append(opts, cluster.WithCacheDir(home))
	}
	start := func(ctx context.Context, l plan.Local) (*LocalCluster, error) {
		c, err := cluster.Start(ctx, append(opts, cluster.WithBrokers(l.Brokers), cluster.WithHeap(l.Heap), cluster.WithTieredStorage(l.TieredStorage))...)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := c.Stop(sctx, false); err != nil {
				t.Logf("stop the cluster: %v", err)
			}
		})
		return &LocalCluster{Bootstrap: c.Bootstrap(), Version: c.Version, Brokers: len(c.Brokers), Stop: func() {},
			BrokerPIDs: c.PIDs, BrokerMetrics: c.MetricsURLs}, nil
	}
	doc, err := Run(ctx, p, scs, Options{StartLocal: start, Progress: &progress})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	for _, want := range []string{
		"waiting up to 2m0s until topic backlog's oldest records are only in the remote tier",
		"2 of 2 partitions have their oldest records only in the remote tier",
	} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
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
			t.Fatalf("%s: repeat %s (%s)\n%s", doc.Plan.Scenarios[tt.scenario].Name, rep.Status, rep.Error, progress.String())
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
}
