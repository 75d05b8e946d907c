package workload

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/userr"
)

// A cluster without share groups (Kafka 4.0's APIs) is said so before any
// member joins, as a user error naming the releases that have them.
func TestShareConsumeRefusesAClusterWithoutShareGroups(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "q"), kfake.MaxVersions(kversion.V4_0_0()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	_, err = runEngine(ctx, ShareConsume{Spec: ConsumerSpec{Topics: []string{"q"}, Group: "g", Records: 1,
		ClientOpts: func(int) []kgo.Opt { return opts }, Share: &ShareSpec{}}})
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "does not run share groups") || !strings.Contains(err.Error(), "4.1") {
		t.Fatalf("error %v, want a user error saying the cluster has no share groups", err)
	}
}

// On a cluster with share groups (kfake implements KIP-932), members read
// as a queue: the records are settled once and verified.
func TestShareConsumeOnKfake(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "q"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("q"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 500
	for range n {
		p.Produce(ctx, &kgo.Record{Value: []byte("x")}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	m, err := runEngine(ctx, ShareConsume{Verify: true,
		GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
		Spec: ConsumerSpec{Topics: []string{"q"}, Group: "g", Clients: 3, Records: n, IdleTimeout: 20 * time.Second,
			ClientOpts: func(int) []kgo.Opt { return opts }, Share: &ShareSpec{DeliveryLimit: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Read.Share.Verdict; m.Read.Records != n || v == nil || v.Accepted != n || v.Unsettled != 0 {
		t.Fatalf("records %d, verdict %+v; want %d accepted once", m.Read.Records, v, n)
	}
}

// TestSharePerMemberCountsSettled guards per_member, which summed to the
// accepted records (18,817) where the run counts settled ones (20,000):
// each member's count is the records its acknowledgement settled
// (accepted, rejected, or archived on their last delivery), and they sum
// to the records the run counted.
func TestSharePerMemberCountsSettled(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "q"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("q"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	for range n {
		p.Produce(ctx, &kgo.Record{Value: []byte("x")}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	// Every 10th record rejected, every 7th released once, every 13th
	// released on every delivery (archived at the limit).
	outcome := func(_ *rand.Rand, offset int64, delivery int32) Ack {
		switch {
		case offset%10 == 0:
			return Reject
		case offset%13 == 2, offset%7 == 1 && delivery == 1:
			return Release
		}
		return Accept
	}
	m, err := runEngine(ctx, ShareConsume{Verify: true,
		GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
		Spec: ConsumerSpec{Topics: []string{"q"}, Group: "g", Clients: 3, Records: n, IdleTimeout: 20 * time.Second,
			ClientOpts: func(int) []kgo.Opt { return opts }, Share: &ShareSpec{DeliveryLimit: 5, Outcome: outcome}}})
	if err != nil {
		t.Fatal(err)
	}
	sh := m.Read.Share
	var sum int64
	for _, k := range sh.PerMember {
		sum += k
	}
	if len(sh.PerMember) != 3 || sum != n || sh.Settled != n || sh.Accepted+sh.Rejected+sh.Archived != n || sh.Rejected == 0 || sh.Archived == 0 {
		t.Errorf("per member %v (sum %d), settled %d, accepted %d + rejected %d + archived %d; want 3 members settling all %d",
			sh.PerMember, sum, sh.Settled, sh.Accepted, sh.Rejected, sh.Archived, n)
	}
	if m.Read.Records != sh.Accepted {
		t.Errorf("records %d, want the accepted %d (the rates count accepted records)", m.Read.Records, sh.Accepted)
	}
}

// A missing topic is the user's error, said before anything else asks
// for it, and left missing: a verified share run listed its start offsets
// first, through a client with Java's allow.auto.create.topics=true, so the
// broker created the topic the run then reported missing (on Kafka 4.3.1:
// "list start offsets: UNKNOWN_TOPIC_OR_PARTITION", the topic left behind).
func TestShareConsumeMissingTopicCreatesNothing(t *testing.T) {
	t.Parallel()
	c := testkafka.NewFake(t, kfake.AllowAutoTopicCreation())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...), kgo.AllowAutoTopicCreation()}
	for _, verify := range []bool{false, true} {
		_, err := runEngine(ctx, ShareConsume{Verify: verify,
			GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
			Spec: ConsumerSpec{Topics: []string{"absent"}, Group: "g", Records: 1,
				ClientOpts: func(int) []kgo.Opt { return opts }, Share: &ShareSpec{}}})
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), `topic "absent" does not exist`) {
			t.Errorf("verify %v: error %v, want the user's error that the topic does not exist", verify, err)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	lctx, lcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer lcancel()
	topics, err := kadm.NewClient(cl).ListTopics(lctx)
	if err != nil {
		t.Fatal(err)
	}
	if topics.Has("absent") {
		t.Errorf("the run created the topic it reported missing: %v", topics.Names())
	}
}

// A cluster with share groups turned off (Kafka 4.3.1 with share.version=0)
// still lists the share APIs and answers each share request
// UNSUPPORTED_VERSION; franz-go retries the refused heartbeat for ever, so
// members waited for records until their idle timeout, or for ever
// without one. The run now says so before any member joins (the group's
// describe is refused) and, should the heartbeat be refused all the same
// (share groups turned off mid-run), as soon as a member is refused.
func TestShareConsumeRefusesShareGroupsTurnedOff(t *testing.T) {
	t.Parallel()
	for _, refused := range []string{"describe", "heartbeat"} {
		t.Run(refused, func(t *testing.T) {
			t.Parallel()
			c := testkafka.NewFake(t, kfake.SeedTopics(1, "q"))
			var heartbeats atomic.Int32
			c.ControlKey(int16(kmsg.ShareGroupHeartbeat), func(req kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				heartbeats.Add(1)
				if refused != "heartbeat" {
					return nil, nil, false
				}
				resp := req.ResponseKind().(*kmsg.ShareGroupHeartbeatResponse)
				resp.ErrorCode = kerr.UnsupportedVersion.Code
				return resp, nil, true
			})
			if refused == "describe" {
				c.ControlKey(int16(kmsg.ShareGroupDescribe), func(req kmsg.Request) (kmsg.Response, error, bool) {
					resp := req.ResponseKind().(*kmsg.ShareGroupDescribeResponse)
					for _, g := range req.(*kmsg.ShareGroupDescribeRequest).GroupIDs {
						rg := kmsg.NewShareGroupDescribeResponseGroup()
						rg.GroupID, rg.ErrorCode = g, kerr.UnsupportedVersion.Code
						resp.Groups = append(resp.Groups, rg)
					}
					return resp, nil, true
				})
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
			start := time.Now()
			_, err := runEngine(ctx, ShareConsume{Spec: ConsumerSpec{Topics: []string{"q"}, Group: "g", Records: 10,
				IdleTimeout: 30 * time.Second, ClientOpts: func(int) []kgo.Opt { return opts }, Share: &ShareSpec{}}})
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "does not run share groups: its brokers refuse share-group requests") {
				t.Fatalf("error %v, want the user's error that share groups are turned off", err)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %s: the run waited for records (its idle timeout is 30s)", took)
			}
			if n := heartbeats.Load(); refused == "describe" && n != 0 {
				t.Errorf("%d heartbeats: a member joined before the check", n)
			}
		})
	}
}

// TestShareLagCountsUnstartedPartitions guards a share group's lag, which
// was the broker's lag field alone: -1, so 0, for share-partitions no
// member had fetched yet, so a run with 20,000 records waiting said lag 0.
// Now a share-partition not started counts from where the group will
// start (earliest: every record; latest: none), and a started one is the
// broker's count.
func TestShareLagCountsUnstartedPartitions(t *testing.T) {
	t.Parallel()
	c := testkafka.NewFake(t, kfake.SeedTopics(2, "q"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("q"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	const n = 300
	for range n {
		cl.Produce(ctx, &kgo.Record{Value: []byte("x")}, nil)
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	lag := func(group string) []LagSample {
		t.Helper()
		r := &ConsumerRun{spec: ConsumerSpec{Group: group, Share: &ShareSpec{}, Interval: time.Second}, admin: cl, start: time.Now()}
		s := newLagSampler(r, map[string][]int32{"q": {0, 1}})
		s.sample(ctx)
		return s.samples
	}
	if err := setGroupConfigs(ctx, cl, "early", map[string]string{"share.auto.offset.reset": "earliest"}); err != nil {
		t.Fatal(err)
	}
	if got := lag("early"); len(got) != 1 || got[0].Records != n {
		t.Errorf("earliest, nothing fetched: samples %+v, want one of %d records", got, n)
	}
	if got := lag("late"); len(got) != 1 || got[0].Records != 0 {
		t.Errorf("latest, nothing fetched: samples %+v, want one of 0 records", got)
	}
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	if _, err := runEngine(ctx, ShareConsume{Spec: ConsumerSpec{Topics: []string{"q"}, Group: "early", Records: 100,
		MaxPollRecords: 10, IdleTimeout: 20 * time.Second, ClientOpts: func(int) []kgo.Opt { return opts }, Share: &ShareSpec{}}}); err != nil {
		t.Fatal(err)
	}
	// The members settled 100 (and released what they polled past them).
	if got := lag("early"); len(got) != 1 || got[0].Records != n-100 {
		t.Errorf("earliest, 100 settled: samples %+v, want one of %d records", got, n-100)
	}
}
