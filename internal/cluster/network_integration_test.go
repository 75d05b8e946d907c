package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// waitUntil polls cond every 200 ms until it holds or within passes;
// cond says what it saw, for the failure. within is a hang guard, not a
// measurement: the callers log how long it took.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	began := time.Now()
	tick := time.NewTicker(200 * time.Millisecond) // a real cluster's state: no event to wait on
	defer tick.Stop()
	var saw string
	for time.Since(began) < within {
		var ok bool
		if ok, saw = cond(); ok {
			return time.Since(began)
		}
		<-tick.C
	}
	t.Fatalf("%s: not within %s (last: %s)", what, within, saw)
	return 0
}

// brokerView is what one broker says, itself: which brokers are fenced
// (DescribeCluster with fenced brokers, Kafka 4.0+) and each partition's
// in-sync replicas of topic.
func brokerView(ctx context.Context, cl *kgo.Client, id int32, topic string) (fenced map[int32]bool, isr [][]int32, err error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	b := cl.Broker(int(id))
	dreq := kmsg.NewPtrDescribeClusterRequest()
	dreq.IncludeFencedBrokers = true
	dresp, err := b.Request(ctx, dreq)
	if err != nil {
		return nil, nil, err
	}
	fenced = map[int32]bool{}
	for _, br := range dresp.(*kmsg.DescribeClusterResponse).Brokers {
		fenced[br.NodeID] = br.IsFenced
	}
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mreq.Topics = append(mreq.Topics, mt)
	mresp, err := b.Request(ctx, mreq)
	if err != nil {
		return nil, nil, err
	}
	for _, tp := range mresp.(*kmsg.MetadataResponse).Topics {
		for _, p := range tp.Partitions {
			isr = append(isr, p.ISR)
		}
	}
	return fenced, isr, nil
}

// activeController asks the quorum for its leader.
func activeController(ctx context.Context, t *testing.T, cl *kgo.Client) int32 {
	t.Helper()
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("describe quorum: %v", err)
	}
	return resp.Topics[0].Partitions[0].LeaderID
}

// The partition, on a real 3-node cluster through its proxies: a
// broker cut off from the other brokers and the controller quorum while
// clients still reach it drops out of every ISR and is fenced; healing
// brings it back. Then: a restarted broker keeps its proxies and their
// faults, and a proxy process that died is started again by Heal.
func TestNetworkFaultsPartition(t *testing.T) {
	t.Parallel()
	if err := checkLoopback(3); err != nil {
		t.Skip(err)
	}
	c, _ := startTest(t, WithBrokers(3), WithNetworkFaults(true), WithProxyCommand(testProxyCommand(t)...))
	// A hang guard, not a measurement (as are the waits below): the test
	// restarts a broker (up to 5 min on a loaded machine, startTest).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	// Through the clients' proxies, as every client reaches the cluster.
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...), kgo.MetadataMinAge(10*time.Millisecond),
		kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	const topic = "partitioned"
	if _, err := adm.CreateTopic(ctx, 3, 3, map[string]*string{"min.insync.replicas": kmsg.StringPtr("2")}, topic); err != nil {
		t.Fatal(err)
	}
	// Replication runs through the brokers' proxies: acks=all needs it.
	// (The first produce waits for every broker to know the new topic.)
	waitUntil(t, time.Minute, "the new topic takes a record", func() (bool, string) {
		err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("first")}).FirstErr()
		return err == nil, fmt.Sprint(err)
	})
	for i := range 30 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatalf("produce with acks=all through the proxies: %v", err)
		}
	}

	// The victim is not the active controller: cut off from the quorum,
	// the active controller would first have to lose its leadership.
	ctrl := activeController(ctx, t, cl)
	victim := int32(1)
	for victim == ctrl {
		victim++
	}
	witness := ctrl // a broker too, with the freshest view of the metadata
	t.Logf("active controller %d; cutting broker %d off; asking broker %d", ctrl, victim, witness)
	link, err := c.Link(Brokers(int(victim)), AllBrokers().And(AllControllers()))
	if err != nil {
		t.Fatal(err)
	}
	if err := link.Cut(ctx); err != nil {
		t.Fatal(err)
	}
	cutAt := time.Now()
	outOfISR := func() (bool, string) {
		fenced, isr, err := brokerView(ctx, cl, witness, topic)
		if err != nil {
			return false, err.Error()
		}
		for _, r := range isr {
			if slices.Contains(r, victim) {
				return false, fmt.Sprintf("fenced %v, ISRs %v", fenced, isr)
			}
		}
		return fenced[victim] && len(isr) == 3, fmt.Sprintf("fenced %v, ISRs %v", fenced, isr)
	}
	// broker.session.timeout.ms is 9 s; 2 min leaves room for a slow machine.
	waitUntil(t, 2*time.Minute, fmt.Sprintf("broker %d fenced and out of every ISR", victim), outOfISR)
	t.Logf("broker %d fenced and out of every ISR %.1fs after the cut", victim, time.Since(cutAt).Seconds())

	// Clients still reach it: it answers a request of its own.
	alone, err := kgo.NewClient(kgo.SeedBrokers(mustBroker(t, c, int(victim)).Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
	_, err = alone.SeedBrokers()[0].Request(rctx, kmsg.NewPtrMetadataRequest())
	rcancel()
	if err != nil {
		t.Errorf("a client of the cut-off broker %d: %v, want an answer", victim, err)
	}

	if err := link.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	healedAt := time.Now()
	waitUntil(t, 2*time.Minute, fmt.Sprintf("broker %d unfenced and back in every ISR", victim), func() (bool, string) {
		fenced, isr, err := brokerView(ctx, cl, witness, topic)
		if err != nil {
			return false, err.Error()
		}
		for _, r := range isr {
			if !slices.Contains(r, victim) {
				return false, fmt.Sprintf("fenced %v, ISRs %v", fenced, isr)
			}
		}
		return len(isr) == 3 && !fenced[victim], fmt.Sprintf("fenced %v, ISRs %v", fenced, isr)
	})
	t.Logf("broker %d back in every ISR %.1fs after the heal", victim, time.Since(healedAt).Seconds())

	// A restart keeps the proxies, and the faults on them.
	proxyPID := c.network().PID
	slow, err := c.Link(Brokers(int(victim)), AllBrokers())
	if err != nil {
		t.Fatal(err)
	}
	if err := slow.Delay(ctx, 5*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(ctx, int(victim)); err != nil {
		t.Fatal(err)
	}
	st, err := c.NetworkStatus(ctx)
	if err != nil || !st.Answers || st.PID != proxyPID {
		t.Fatalf("after restarting broker %d: network status %+v, %v; want the same proxy process (pid %d) answering", victim, st, err, proxyPID)
	}
	for _, p := range st.Paths {
		if slices.ContainsFunc(slow.Proxies(), func(q Proxy) bool { return q.Name == p.Name }) && p.Describe() != "delay 5ms" {
			t.Errorf("%s after the restart: %q, want the delay kept", p.Proxy, p.Describe())
		}
	}

	// The proxy process dies: Heal starts it again, with no faults.
	if err := syscall.Kill(proxyPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, time.Minute, "the proxy process gone", func() (bool, string) { return c.proxyState() == procGone, "running" })
	if st, _ := c.NetworkStatus(ctx); st.Alive {
		t.Errorf("network status says the killed proxy process runs")
	}
	if _, err := c.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	st, err = c.NetworkStatus(ctx)
	if err != nil || !st.Alive || !st.Answers || st.PID == proxyPID {
		t.Fatalf("after Heal: network status %+v, %v; want a new proxy process answering", st, err)
	}
	for _, p := range st.Paths {
		if p.Describe() != "none" {
			t.Errorf("%s after the proxies were started again: %q", p.Proxy, p.Describe())
		}
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("after")}).FirstErr(); err != nil {
		t.Errorf("produce with acks=all through the new proxies: %v", err)
	}
}

func mustBroker(t *testing.T, c *Cluster, id int) Broker {
	t.Helper()
	b, ok := c.Broker(id)
	if !ok {
		t.Fatalf("no broker %d", id)
	}
	return b
}
