package timeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/faults"
)

// TestFaultCountsTheBrokersReplicas: regression: about 750 partitions an
// earlier study left on the cluster made an ISR recovery 35-78 s where the
// study had seen 9-13 s, and nothing said so. A fault on a broker now
// records the partition replicas it held, every topic's and the plan's.
func TestFaultCountsTheBrokersReplicas(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "t"), kfake.SeedTopics(30, "left-by-another-run"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	const broker = 1
	// An independent count, from the same metadata.
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	m, err := kadm.NewClient(cl).Metadata(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	all, plan := 0, 0
	for _, td := range m.Topics {
		for _, p := range td.Partitions {
			if slices.Contains(p.Replicas, broker) {
				all++
				if td.Topic == "t" {
					plan++
				}
			}
		}
	}
	actor := newEventActor(func(context.Context, string, int32) error { return nil })
	tl, err := Start(context.Background(), Config{
		Admin: opts, Topics: []string{"t"}, Actor: actor, MeasureFor: time.Second,
		Faults: []faults.Fault{{Action: faults.Pause, Target: faults.Target{Broker: broker}}},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	actor.await(t, "pause 1", 20*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := tl.Finish(ctx)[0]
	if r.Replicas != all || r.PlanReplicas != plan || all <= plan {
		t.Errorf("replicas %d, the plan's %d; counted independently %d and %d (want more than the plan's)", r.Replicas, r.PlanReplicas, all, plan)
	}
}

// TestFinishSaysWhatItWaitsFor: regression: a remote kill whose election
// never came held the run for the measurement's 2 minutes while the
// progress said "about 0s left". Finish now says what it still measures.
func TestFinishSaysWhatItWaitsFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v := newFakeView()
		var mu sync.Mutex
		var logs []string
		actor := newEventActor(func(context.Context, string, int32) error { return nil }) // the leader never moves
		tl, err := Start(context.Background(), Config{view: v, Topics: []string{"t"}, Actor: actor, MeasureFor: time.Minute,
			Faults: []faults.Fault{{Name: "k", Action: faults.Kill, Target: faults.Target{Leader: &faults.Partition{Topic: "t", Partition: 0}}}},
			Logf: func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				logs = append(logs, fmt.Sprintf(format, args...))
			}}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r := tl.Finish(ctx)[0]
		mu.Lock()
		defer mu.Unlock()
		if !slices.ContainsFunc(logs, func(l string) bool {
			return strings.Contains(l, "the workloads ended; still measuring the election of fault k") && strings.Contains(l, "at most 1m0s")
		}) {
			t.Errorf("logs %q: want what Finish waits for", logs)
		}
		if !r.ElectionTimedOut {
			t.Errorf("result %+v: want the election not seen", r)
		}
	})
}

// TestFaultOnAnUnknownBroker: regression: a remote cluster's kill of
// broker 99, on a cluster of one broker, ran its command and was reported
// done. A broker the cluster does not have fails the fault, saying so.
func TestFaultOnAnUnknownBroker(t *testing.T) {
	_, opts := cluster(t)
	actor := newEventActor(func(context.Context, string, int32) error { return nil })
	tl, err := Start(context.Background(), Config{Admin: opts, Topics: []string{"t"}, Actor: actor, MeasureFor: time.Second,
		Faults: []faults.Fault{{Action: faults.Kill, Target: faults.Target{Broker: 99}}}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	time.Sleep(100 * time.Millisecond)
	r := tl.Finish(ctx)[0]
	if r.Status != StatusFailed || !strings.Contains(r.Error, "broker 99 is not one of the cluster's brokers ([0 1 2] when the faults began)") {
		t.Errorf("result %+v; want failed, naming the brokers", r)
	}
	select {
	case act := <-actor.acts:
		t.Errorf("the actor was asked to act: %s", act)
	default:
	}
}
