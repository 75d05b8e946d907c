package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/kbench/kbench/internal/testkafka"
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

// fakeBroker is a fake Kafka broker of the test's own (kfake, in the test
// process; kbench processes the test starts reach it too) that the test
// breaks: Kill closes it, as a broker that died (connections reset, new
// ones refused); Pause makes it hold every request from then on, as a
// frozen or overloaded broker does (connections accepted, nothing
// answered). Held requests are released when the test ends. The bounded
// exits these tests check are kbench's, not Kafka's, so no JVM is needed.
type fakeBroker struct {
	c      *kfake.Cluster
	paused atomic.Bool
}

// newFakeBroker starts a fake broker that creates topics on first use
// (Kafka's default auto.create.topics.enable), unless noAutoCreate.
func newFakeBroker(t *testing.T, noAutoCreate ...bool) *fakeBroker {
	t.Helper()
	var opts []kfake.Opt
	if len(noAutoCreate) == 0 || !noAutoCreate[0] {
		opts = append(opts, kfake.AllowAutoTopicCreation())
	}
	c := testkafka.NewFake(t, opts...)
	hold := kfakehold.New(t, c)
	f := &fakeBroker{c: c}
	c.Control(func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if f.paused.Load() {
			hold.UntilEnd()
		}
		return nil, nil, false
	})
	return f
}

// Bootstrap is the broker's address.
func (f *fakeBroker) Bootstrap() string { return f.c.ListenAddrs()[0] }

// Kill closes the broker.
func (f *fakeBroker) Kill() { f.c.Close() }

// Pause makes the broker hold every request that reaches it from now on,
// until the test ends.
func (f *fakeBroker) Pause() { f.paused.Store(true) }

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

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
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
