package share

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/userr"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/engine"
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
	_, err = runShare(ctx, shareKind{Spec: consume.ConsumerSpec{Topics: []string{"q"}, Group: "g", Records: 1,
		ClientOpts: func(int) []kgo.Opt { return opts }}, Share: Spec{}})
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
	m, err := runShare(ctx, shareKind{Verify: true,
		GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
		Spec: consume.ConsumerSpec{Topics: []string{"q"}, Group: "g", Clients: 3, Records: n, IdleTimeout: 20 * time.Second,
			ClientOpts: func(int) []kgo.Opt { return opts }}, Share: Spec{DeliveryLimit: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Share.Verdict; m.Read.Records != n || v == nil || v.Accepted != n || v.Unsettled != 0 {
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
	m, err := runShare(ctx, shareKind{Verify: true,
		GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
		Spec: consume.ConsumerSpec{Topics: []string{"q"}, Group: "g", Clients: 3, Records: n, IdleTimeout: 20 * time.Second,
			ClientOpts: func(int) []kgo.Opt { return opts }}, Share: Spec{DeliveryLimit: 5, Outcome: outcome}})
	if err != nil {
		t.Fatal(err)
	}
	sh := m.Share
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
		_, err := runShare(ctx, shareKind{Verify: verify,
			GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
			Spec: consume.ConsumerSpec{Topics: []string{"absent"}, Group: "g", Records: 1,
				ClientOpts: func(int) []kgo.Opt { return opts }}, Share: Spec{}})
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
			_, err := runShare(ctx, shareKind{Spec: consume.ConsumerSpec{Topics: []string{"q"}, Group: "g", Records: 10,
				IdleTimeout: 30 * time.Second, ClientOpts: func(int) []kgo.Opt { return opts }}, Share: Spec{}})
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
	lag := func(group string) []measure.LagSample {
		t.Helper()
		var got []measure.LagSample
		spec := consume.ConsumerSpec{Group: group, Interval: time.Second, OnLag: func(l measure.LagSample) { got = append(got, l) }}
		(&shareGroup{spec: spec}).SampleLag(ctx, consume.NewLagSampler(cl, spec, map[string][]int32{"q": {0, 1}}))
		return got
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
	if _, err := runShare(ctx, shareKind{Spec: consume.ConsumerSpec{Topics: []string{"q"}, Group: "early", Records: 100,
		MaxPollRecords: 10, IdleTimeout: 20 * time.Second, ClientOpts: func(int) []kgo.Opt { return opts }}, Share: Spec{}}); err != nil {
		t.Fatal(err)
	}
	// The members settled 100 (and released what they polled past them).
	if got := lag("early"); len(got) != 1 || got[0].Records != n-100 {
		t.Errorf("earliest, 100 settled: samples %+v, want one of %d records", got, n-100)
	}
}

// TestShareCountsEachRecordOnce guards the run's count of settled records,
// which counted a record each time a member settled it: a record whose
// acknowledgement the broker never took (sent to a broker that died, or
// after its lock ran out) is delivered again and settled again, and a
// leader-kill run stopped at 6,000 settlements with 5,910 records settled
// (verification: 90 unsettled). Here locks run out during processing: the
// run goes on until every record is settled, and counts the second
// settlements apart.
func TestShareCountsEachRecordOnce(t *testing.T) {
	t.Parallel()
	c := testkafka.NewFake(t, kfake.SeedTopics(1, "q"), kfake.BrokerConfigs(map[string]string{
		"group.share.record.lock.duration.ms": "150",
		"share.record.lock.sweep.interval.ms": "10",
		"group.share.delivery.count.limit":    "10",
	}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("q"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	for range n {
		p.Produce(ctx, &kgo.Record{Value: []byte("x")}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	// Each poll takes 4 records of 60 ms: the last ones' locks run out
	// before they are acknowledged, and another member gets them.
	m, err := runShare(ctx, shareKind{Verify: true,
		GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
		Spec: consume.ConsumerSpec{Topics: []string{"q"}, Group: "g", Clients: 3, Records: n, MaxPollRecords: 4, IdleTimeout: 20 * time.Second,
			ClientOpts: func(int) []kgo.Opt { return opts }},
		Share: Spec{DeliveryLimit: 10, Processing: func(*rand.Rand) time.Duration { return 60 * time.Millisecond }}})
	sh := m.Share
	if sh == nil || sh.Verdict == nil {
		t.Fatalf("no share result or verdict (%v)", err)
	}
	v := sh.Verdict
	if v.AcceptedTwice == 0 {
		t.Skipf("no record was accepted twice (locks did not run out): %+v", v)
	}
	if sh.Settled != n || m.Read.Records != n || v.Unsettled != 0 || sh.Resettled < v.AcceptedTwice {
		t.Errorf("settled %d, records %d, verdict %+v (error %v); want all %d records settled, each counted once, %d settled again apart",
			sh.Settled, m.Read.Records, v, err, n, sh.Resettled)
	}
}

// TestShareVerifiesAnInterruptedRun guards Ctrl-C: an interrupted run
// was not verified at all, and left 1,253 records delivered but never
// settled unreported. Now it is verified up to the last record read of
// each partition, the verdict marked partial.
func TestShareVerifiesAnInterruptedRun(t *testing.T) {
	t.Parallel()
	c := testkafka.NewFake(t, kfake.SeedTopics(2, "q"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("q"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	for range n {
		p.Produce(ctx, &kgo.Record{Value: []byte("x")}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	runCtx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	m, err := runShare(runCtx, shareKind{Verify: true,
		GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
		Spec: consume.ConsumerSpec{Topics: []string{"q"}, Group: "g", Clients: 2, Records: n, MaxPollRecords: 50, IdleTimeout: 20 * time.Second,
			ClientOpts: func(int) []kgo.Opt { return opts }},
		Share: Spec{DeliveryLimit: 5, Processing: func(*rand.Rand) time.Duration { return time.Millisecond },
			OnPoll: func(_ int, records, _ int64, _ time.Time) {
				if records >= 100 {
					interrupt() // Ctrl-C, records in hand
				}
			}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the interruption alone", err)
	}
	sh := m.Share
	if sh == nil || sh.Verdict == nil {
		t.Fatalf("share %+v: an interrupted run was not verified", sh)
	}
	v := sh.Verdict
	if !v.Partial || v.Records == 0 || v.Records >= n || v.Accepted != sh.Settled || v.AcceptedTwice != 0 || v.Records != v.Accepted+v.Unsettled {
		t.Errorf("verdict %+v, settled %d; want a partial verdict of the records read: every one settled once or unsettled", v, sh.Settled)
	}
}

// TestShareVerdictTakesTheBrokersStart: a record no member settled below
// the group's share start offset after the run was settled by the broker
// (archived after deliveries no member processed, or an offset without a
// record); one above it is unsettled. kbench listed both unsettled, where
// the broker's start offset said otherwise.
func TestShareVerdictTakesTheBrokersStart(t *testing.T) {
	t.Parallel()
	led := &offsetLedger{}
	for off := range int64(10) {
		if off != 3 && off != 4 && off != 7 {
			led.note(off, Accept, false, 1)
		}
	}
	l := &Ledger{parts: map[engine.TopicPartition]*offsetLedger{{Topic: "q", Partition: 0}: led}}
	start := map[string]map[int32]int64{"q": {0: 0}}
	end := map[string]map[int32]int64{"q": {0: 10}}
	v := l.Verify(start, end, map[string]map[int32]int64{"q": {0: 5}})
	if v.Records != 10 || v.Accepted != 7 || v.SettledByBroker != 2 || v.Unsettled != 1 || len(v.Missing) != 1 || v.Missing[0].Offset != 7 {
		t.Errorf("verdict %+v; want 7 accepted, 3 and 4 settled by the broker, 7 unsettled", v)
	}
	if v := l.Verify(start, end, nil); v.Unsettled != 3 || v.SettledByBroker != 0 {
		t.Errorf("without the broker's start: %+v, want 3 unsettled", v)
	}
}

// TestShareStallSaysWhy guards what a share group's members said while
// records waited and none came: nothing ("waiting for the first record",
// lag 0) for the 9 to 13 s a killed leader held a group without
// partitions. Now each lag sample says, with the records unread, what
// holds them as far as kbench sees: here no member has joined (the
// coordinator answers every heartbeat without an assignment, and keeps
// no group).
func TestShareStallSaysWhy(t *testing.T) {
	t.Parallel()
	c := testkafka.NewFake(t, kfake.SeedTopics(1, "q"))
	c.ControlKey(int16(kmsg.ShareGroupHeartbeat), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		hb := req.(*kmsg.ShareGroupHeartbeatRequest)
		resp := req.ResponseKind().(*kmsg.ShareGroupHeartbeatResponse)
		resp.MemberID, resp.MemberEpoch, resp.HeartbeatIntervalMillis = kmsg.StringPtr(hb.MemberID), 1, 1000
		return resp, nil, true
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("q"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	for range n {
		p.Produce(ctx, &kgo.Record{Value: []byte("x")}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()
	var mu sync.Mutex
	var stalls []measure.Stall
	opts := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	_, err = runShare(ctx, shareKind{ShortOK: true,
		GroupConfigs: map[string]string{"share.auto.offset.reset": "earliest"},
		Spec: consume.ConsumerSpec{Topics: []string{"q"}, Group: "g", Records: n, IdleTimeout: 1500 * time.Millisecond,
			Lag: true, Interval: 200 * time.Millisecond, ClientOpts: func(int) []kgo.Opt { return opts }},
		Share: Spec{OnStall: func(s measure.Stall) { mu.Lock(); stalls = append(stalls, s); mu.Unlock() }}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stalls) == 0 {
		t.Fatal("no stall said while 50 records waited and none came")
	}
	s := stalls[len(stalls)-1]
	if !s.Reader || s.Outstanding != n || !strings.Contains(s.Why, "no member has joined") ||
		!strings.HasPrefix(s.String(), "no record read for ") || !strings.Contains(s.String(), "50 records unread; no member has joined the share group yet") {
		t.Errorf("stall %+v (%q); want 50 records unread and why", s, s)
	}
}
