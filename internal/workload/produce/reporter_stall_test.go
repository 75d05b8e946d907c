package produce

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/kbench/kbench/internal/measure"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/load"
)

// TestRampFromZeroUsersIsNoStall: regression: a ramp from `vus: 0` said
// "no acknowledgement for 1.5s: 1 records outstanding" as its first user's
// first record waited a moment for its answer: the stall was counted from
// the start, while no user was active and nothing was outstanding. Time
// with nothing waiting is no stall.
func TestRampFromZeroUsersIsNoStall(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	hold := kfakehold.New(t, c)
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		hold.For(150 * time.Millisecond) // every answer outlasts an interval
		return nil, nil, false
	})
	spec := testSpec(t, c.ListenAddrs(), "t")
	// The user joins at 2.2 s (a rising stage's users join at its steps'
	// ends) and has 800 ms to send: a ramp that only reached its user at
	// the run's last moment sent nothing on a loaded machine.
	ramp, err := load.NewVURamp(0, []load.VUStage{{Duration: 2 * time.Second, Target: 0}, {Duration: 200 * time.Millisecond, Target: 1}, {Duration: 800 * time.Millisecond, Target: 1}})
	if err != nil {
		t.Fatal(err)
	}
	spec.VURamp, spec.Duration = ramp, 3*time.Second
	var mu sync.Mutex
	var stalls []measure.Stall
	spec.OnStall = func(s measure.Stall) {
		mu.Lock()
		defer mu.Unlock()
		stalls = append(stalls, s)
	}
	res, err := RunProducer(context.Background(), spec)
	if err != nil || res.Acked == 0 {
		t.Fatalf("acked %v, err %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range stalls {
		// An answer takes 150 ms, an interval 50 ms: a stall of the
		// record in flight may be said, never one reaching back into
		// the 2 s with no user (the bug said at least that much). The
		// 1.5 s bound sits between: ten times an answer, so a loaded
		// machine's slow answer is no false alarm.
		if s.For >= 1500*time.Millisecond {
			t.Fatalf("stall of %v said (%d outstanding): the ramp had no user for its first 2 s", s.For, s.Outstanding)
		}
	}
}

// TestCommitWaitIsAStall: regression: a broker that stopped answering
// while a transaction's commit waited went unreported (its records were
// flushed, none buffered) until the commit's bound ended the run. A
// commit held for a second is now said as a stall of the transaction's
// records.
func TestCommitWaitIsAStall(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	hold := kfakehold.New(t, c)
	var once sync.Once
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		once.Do(func() { hold.For(time.Second) }) // the first commit waits
		return nil, nil, false
	})
	spec := testSpec(t, c.ListenAddrs(), "t")
	spec.Rate, spec.Duration, spec.TransactionDuration = 1000, 1500*time.Millisecond, 100*time.Millisecond
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.ProducerLinger(time.Millisecond), kgo.TransactionalID("commit-stall")}
	spec.ClientOpts = func(int) []kgo.Opt { return opts }
	var mu sync.Mutex
	var stalls []measure.Stall
	spec.OnStall = func(s measure.Stall) {
		mu.Lock()
		defer mu.Unlock()
		stalls = append(stalls, s)
	}
	if _, err := RunProducer(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var longest measure.Stall
	for _, s := range stalls {
		if s.For > longest.For {
			longest = s
		}
	}
	// Half the hold, so a loaded machine's late interval still counts.
	if longest.For < 500*time.Millisecond || longest.Outstanding == 0 {
		t.Fatalf("longest stall said %v with %d outstanding; want the held commit (a second) said", longest.For, longest.Outstanding)
	}
}
