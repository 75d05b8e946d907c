package timeline

import (
	"context"
	"slices"
	"testing"
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
