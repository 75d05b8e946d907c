package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/cluster"
)

// runKbench runs the real kbench command line with a test state and a
// timeout, returning the exit code.
func runKbench(t *testing.T, st *state, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return run(ctx, append([]string{"kbench"}, args...), st)
}

// uniqueTopic names a topic no other test uses.
func uniqueTopic(t *testing.T, prefix string) string {
	return prefix + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// topicRecords reads a non-transactional topic from the start to its end
// offsets (transaction markers would take offsets too) and returns the value
// sizes it holds, counted by size.
func topicRecords(t *testing.T, bootstrap, topic string) (total int64, bySize map[int]int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	want := endOffsetSum(t, bootstrap, topic)
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	bySize = map[int]int64{}
	for total < want {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d of %d records of %s: %v", total, want, topic, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("consume %s: %v", topic, err) })
		fs.EachRecord(func(r *kgo.Record) {
			total++
			bySize[len(r.Value)]++
		})
	}
	return total, bySize
}

// endOffsetSum is the sum of the topic's end offsets: its records, plus one
// offset per transaction marker.
func endOffsetSum(t *testing.T, bootstrap, topic string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	ends.Each(func(o kadm.ListedOffset) { sum += o.Offset })
	return sum
}

// privateCluster starts a 1-broker cluster of the test's own, for tests
// that kill brokers or need broker settings the shared one lacks.
func privateCluster(t *testing.T, props map[string]string) *cluster.Cluster {
	t.Helper()
	return privateClusterOf(t, 1, props)
}

// privateClusterOf starts a cluster of the test's own with that many brokers.
func privateClusterOf(t *testing.T, brokers int, props map[string]string) *cluster.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts a real Kafka broker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cache := os.Getenv("KBENCH_HOME")
	if cache == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(d, "kbench")
	}
	c, err := cluster.Start(ctx, cluster.WithName("t"), cluster.WithBrokers(brokers), cluster.WithCacheDir(cache),
		cluster.WithStateDir(t.TempDir()), cluster.WithHeap("512m"),
		cluster.WithStopOnExit(true), cluster.WithBrokerProps(props))
	if err != nil {
		t.Fatalf("start private cluster: %v", err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Stop(sctx, false); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("stop private cluster: %v", err)
		}
	})
	return c
}

// syncBuffer is a bytes.Buffer safe to read while a command writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls until cond holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// hangGuard fails the test when took passed guard. A guard is not a
// measurement: it is set far above the bound the product promises (said
// in what, with its args) and far below what the regression it guards
// against took, so that it holds on a machine twice as slow and twice as
// fast, and a hang fails with the output instead of running into go
// test's timeout. It logs took either way, so a run shows the real times.
func hangGuard(t *testing.T, took, guard time.Duration, what string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(what, args...)
	t.Logf("took %v (hang guard %v): %s", took.Round(time.Millisecond), guard, firstLine(msg))
	if took > guard {
		t.Errorf("took %v, over the hang guard of %v: %s", took.Round(time.Millisecond), guard, msg)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// signalPending says whether sig is pending for process pid, sent and not
// yet taken by it (Linux: /proc/PID/status). A second signal of a kind
// sent while the first is pending is lost: the kernel keeps one.
func signalPending(t *testing.T, pid int, sig syscall.Signal) bool {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false // gone: nothing pending
	}
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "ShdPnd" && k != "SigPnd") {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", k, v, err)
		}
		if mask&(1<<(uint(sig)-1)) != 0 {
			return true
		}
	}
	return false
}
