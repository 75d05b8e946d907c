package share

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/testkafka"
	"github.com/kbench/kbench/internal/workload/consume"
)

// shareOpts are a share consumer's options as kafkaconf maps them.
func shareOpts(t *testing.T, bootstrap string, props ...kafkaconf.Prop) []kgo.Opt {
	t.Helper()
	props = append([]kafkaconf.Prop{{Key: "bootstrap.servers", Value: bootstrap, Source: "test"}}, props...)
	cc, _, err := kafkaconf.ParseConsumer(props)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cc.ShareOpts()
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

// setGroupEarliest sets the share group's share.auto.offset.reset to
// earliest, as plans do, so that it reads records written before it joined.
func setGroupEarliest(t *testing.T, bootstrap, group string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = "share.auto.offset.reset", kmsg.StringPtr("earliest")
	res.Configs = append(res.Configs, cfg)
	req.Resources = append(req.Resources, res)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			t.Fatalf("set share.auto.offset.reset of %s: error %d %v", group, r.ErrorCode, r.ErrorMessage)
		}
	}
}

// More members than partitions all work, a released tenth of deliveries
// comes back and is counted, and the ledger finds every record settled
// exactly once.
func TestIntegrationShareGroupMoreMembersThanPartitions(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	const k = 20000
	topic := realTopic(t, bootstrap, 2, k)
	group := consTopic(t)
	setGroupEarliest(t, bootstrap, group)
	opts := shareOpts(t, bootstrap, kafkaconf.Prop{Key: "max.poll.records", Value: "50", Source: "test"})
	spec := shareKind{Verify: true, Spec: consume.ConsumerSpec{
		Topics: []string{topic}, Group: group, Clients: 8, Records: k,
		IdleTimeout: 60 * time.Second, Latency: true, Lag: true, Interval: time.Second,
		ClientOpts: func(int) []kgo.Opt { return opts }},
		Share: Spec{
			Outcome: func(rng *rand.Rand, _ int64, _ int32) Ack {
				if rng.Float64() < 0.1 {
					return Release
				}
				return Accept
			},
			// Slow enough that one member cannot take every record.
			Processing:    func(*rand.Rand) time.Duration { return 200 * time.Microsecond },
			DeliveryLimit: 5,
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	m, err := runShare(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	sh := m.Share
	// A record released on each of its 5 deliveries (1 in 100,000) is
	// archived: settled, not accepted.
	if settled := sh.Accepted + sh.Archived + sh.Rejected; settled != k {
		t.Errorf("settled %d records (%d accepted, %d archived), want %d", settled, sh.Accepted, sh.Archived, k)
	}
	if sh.Released == 0 || sh.Redelivered == 0 {
		t.Errorf("released %d, redelivered %d: a tenth released should come back", sh.Released, sh.Redelivered)
	}
	if sh.Deliveries != sh.Accepted+sh.Released+sh.Rejected {
		t.Errorf("deliveries %d != accepted %d + released %d + rejected %d", sh.Deliveries, sh.Accepted, sh.Released, sh.Rejected)
	}
	t.Logf("share: %+v; verdict %+v; per member %v", *sh, sh.Verdict, sh.PerMember)
	v := sh.Verdict
	if v == nil || v.Records != k || v.Unsettled != 0 || v.AcceptedTwice != 0 || v.Accepted+v.Archived != k {
		t.Errorf("verdict %+v, want all %d records settled once", v, k)
	}
	working := 0
	for _, n := range sh.PerMember {
		if n > 0 {
			working++
		}
	}
	if working != 8 {
		t.Errorf("%d of 8 members settled records (%v); with more members than partitions all should work", working, sh.PerMember)
	}
}

// shareKind is what the share-consume kind runs (ShareConsume):
// the tests run a share group as the kind does.
type shareKind struct {
	Spec         consume.ConsumerSpec
	Share        Spec
	Verify       bool
	ShortOK      bool
	GroupConfigs map[string]string
}

// measured is what the kind's engine returns of a share run.
type measured struct {
	Read  *consume.ConsumerResult
	Share *Result
}

// runShare runs a share group through its life as the kind's engine does.
func runShare(ctx context.Context, k shareKind) (measured, error) {
	spec := k.Spec
	spec.Epoch = time.Now()
	run, err := Start(ctx, spec, k.Share, Options{Verify: k.Verify, ShortOK: k.ShortOK, GroupConfigs: k.GroupConfigs})
	if err != nil {
		return measured{}, err
	}
	res, sh, err := run.Wait()
	return measured{Read: res, Share: sh}, err
}
