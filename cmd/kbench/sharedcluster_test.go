package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/cluster"
)

// Tests that break brokers (kill, pause, cut or slow their links) cannot
// use internal/testkafka's broker: other tests run on it at the same time.
// Each used to start a cluster of its own, and those starts were most of
// the package's time (a 3-broker start and stop took 80 s on a loaded
// 2-core machine). They borrow one instead, from a pool per shape:
// borrow waits for a free cluster of the shape (starting one on first use,
// up to the pool's size) and lends it to the test alone; when the test
// ends, the cluster is healed (paused brokers resumed, dead ones
// restarted, network faults cleared) and the topics and groups the test
// made are deleted, so that nothing it left reaches the next test. A test
// still names its topics and groups afresh: a deleted name takes a moment
// to be free. A cluster that cannot be restored is stopped, and the next
// borrower starts another.
var (
	// breakablePool: one broker, for tests that kill or pause it.
	breakablePool = &clusterPool{name: "breakable", size: 3, brokers: 1}
	// faultPool: three brokers, for plans that kill or pause them and for
	// plans that need three brokers.
	faultPool = &clusterPool{name: "faults", size: 1, brokers: 3}
	// netFaultPool: three brokers behind kbench's network proxies, for
	// plans with network faults.
	netFaultPool = &clusterPool{name: "netfaults", size: 1, brokers: 3, network: true}
)

type clusterPool struct {
	name    string
	size    int
	brokers int
	network bool

	once  sync.Once
	slots chan struct{}         // one per cluster started (or starting)
	free  chan *cluster.Cluster // restored, waiting for a borrower
}

// shared holds every pooled cluster, for stopSharedClusters.
var shared struct {
	mu       sync.Mutex
	dir      string // the state dir of every pooled cluster
	n        int
	clusters []*cluster.Cluster
}

// sharedStateDir is the state dir of the pooled clusters: a plan names one
// of them (cluster.name) with st.stateDir set to it.
func sharedStateDir(t *testing.T) string {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.dir == "" {
		d, err := os.MkdirTemp("", "kbench-shared-clusters-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir = d
	}
	return shared.dir
}

// borrow lends the test a cluster of the pool's shape until it ends.
func (p *clusterPool) borrow(t *testing.T) *cluster.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: breaks the brokers of a real Kafka cluster")
	}
	p.once.Do(func() {
		p.slots = make(chan struct{}, p.size)
		p.free = make(chan *cluster.Cluster, p.size)
	})
	var c *cluster.Cluster
	select {
	case c = <-p.free:
	default:
		select {
		case c = <-p.free:
		case p.slots <- struct{}{}:
			var err error
			if c, err = p.start(t); err != nil {
				<-p.slots
				t.Fatalf("start a shared %s cluster: %v", p.name, err)
			}
		}
	}
	t.Logf("on the shared %s cluster %s (%s)", p.name, c.Name, c.Bootstrap())
	t.Cleanup(func() { p.giveBack(t, c) })
	return c
}

func (p *clusterPool) start(t *testing.T) (*cluster.Cluster, error) {
	dir := sharedStateDir(t)
	shared.mu.Lock()
	shared.n++
	name := fmt.Sprintf("%s-%d", p.name, shared.n)
	shared.mu.Unlock()
	st, _, _ := clusterTestState(t)
	var log syncBuffer
	st.stateDir, st.stderr = dir, &log
	// A cluster outlives the test that started it: no context of the
	// test's, and brokers that die with the test binary.
	opts := append(clusterOpts(st), cluster.WithName(name), cluster.WithBrokers(p.brokers),
		cluster.WithHeap("512m"), cluster.WithStopOnExit(true), cluster.WithNetworkFaults(p.network),
		cluster.WithStartTimeout(2*time.Minute))
	release := gateStartOf(t, p.brokers > 1)
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	c, err := cluster.Start(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, log.String())
	}
	// A new broker is slow to answer its first requests (its JIT is cold):
	// the first test on it must not pay for that where it measures.
	if err := warmCluster(ctx, c); err != nil {
		c.Stop(context.Background(), false)
		return nil, fmt.Errorf("warm up: %w", err)
	}
	t.Logf("started the shared %s cluster %s in %v", p.name, name, time.Since(began).Round(time.Millisecond))
	shared.mu.Lock()
	shared.clusters = append(shared.clusters, c)
	shared.mu.Unlock()
	return c, nil
}

// warmCluster has the cluster auto-create a topic and take a record on it,
// as most tests do first.
func warmCluster(ctx context.Context, c *cluster.Cluster) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...), kgo.AllowAutoTopicCreation(),
		kgo.UnknownTopicRetries(-1), kgo.DefaultProduceTopic("kbench-warm-up"))
	if err != nil {
		return err
	}
	defer cl.Close()
	return cl.ProduceSync(ctx, &kgo.Record{Value: []byte("warm")}).FirstErr()
}

// giveBack restores the cluster for the next test, or stops it.
func (p *clusterPool) giveBack(t *testing.T, c *cluster.Cluster) {
	began := time.Now()
	if err := restoreCluster(t, c); err != nil {
		t.Logf("the shared %s cluster %s could not be restored, stopped (the next test starts another): %v", p.name, c.Name, err)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Stop(ctx, false); err != nil {
			t.Logf("stop %s: %v", c.Name, err)
		}
		<-p.slots
		return
	}
	t.Logf("restored the shared %s cluster %s in %v", p.name, c.Name, time.Since(began).Round(time.Millisecond))
	p.free <- c
}

// restoreCluster brings every broker back, clears the network faults, and
// deletes every topic and group the test left.
func restoreCluster(t *testing.T, c *cluster.Cluster) error {
	down := false // a broker to start again
	for _, b := range c.Brokers {
		if alive, _ := c.Proc(b.ID); !alive {
			down = true
		}
	}
	if down {
		defer gateStart(t)()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := c.Heal(ctx); err != nil {
		return fmt.Errorf("heal: %w", err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for {
		err := cleanTopicsAndGroups(ctx, adm)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("delete the test's topics and groups: %w (%w)", err, ctx.Err())
		case <-time.After(200 * time.Millisecond): // a poll: the broker has no event to wait on
		}
	}
}

// cleanTopicsAndGroups deletes what it finds and fails until nothing is
// left to delete.
func cleanTopicsAndGroups(ctx context.Context, adm *kadm.Client) error {
	var errs []error
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		return err
	}
	if names := groups.Groups(); len(names) > 0 {
		resps, err := adm.DeleteGroups(ctx, names...)
		if err != nil {
			return err
		}
		for _, r := range resps {
			if r.Err != nil {
				errs = append(errs, fmt.Errorf("group %s: %w", r.Group, r.Err))
			}
		}
	}
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		return err
	}
	if names := topics.Names(); len(names) > 0 {
		if _, err := adm.DeleteTopics(ctx, names...); err != nil {
			return err
		}
		errs = append(errs, fmt.Errorf("topics still listed: %s", strings.Join(names, ", ")))
	}
	return errors.Join(errs...)
}

// stopSharedClusters stops the pooled clusters once every test has run.
func stopSharedClusters() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	var errs []error
	for _, c := range shared.clusters {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := c.Stop(ctx, false); err != nil && !errors.Is(err, cluster.ErrNotFound) {
			errs = append(errs, fmt.Errorf("stop the shared cluster %s: %w", c.Name, err))
		}
		cancel()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	return errors.Join(errs...)
}

// namedPlan makes a plan that starts its own cluster (cluster.local) run
// on c instead: the state for kbench run, and the plan's text.
func namedPlan(t *testing.T, st *state, c *cluster.Cluster, text string) string {
	t.Helper()
	st.stateDir = sharedStateDir(t)
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "local:") {
			line = strings.Replace(line, strings.TrimSpace(line), "name: "+c.Name, 1)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
