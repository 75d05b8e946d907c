package testkafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Topic creates topic with the given partitions and fills it with records
// of size bytes, spread round-robin, failing the test on any error.
func Topic(t testing.TB, bootstrap, topic string, partitions int32, records, size int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A topic created a moment ago may not be hosted yet: wait for it
	// (bounded by ctx) instead of failing after franz-go's 4 retries.
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()), kgo.ProducerLinger(5*time.Millisecond),
		kgo.UnknownTopicRetries(-1))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, partitions, -1, nil, topic); err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	// A topic with no records to write is still used at once (an
	// end-to-end run lists its end offsets first): on a slow broker its
	// partitions are not led yet and the listing says
	// UNKNOWN_TOPIC_OR_PARTITION. Wait until every partition answers.
	waitHosted(t, ctx, kadm.NewClient(cl), topic, partitions)
	value := make([]byte, size)
	for i := range value {
		value[i] = 'v'
	}
	recs := make([]*kgo.Record, records)
	for i := range recs {
		recs[i] = &kgo.Record{Value: value}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}

// waitHosted polls until every partition of the topic has end offsets
// listed without error; ctx bounds it (a hang guard, not a measurement).
func waitHosted(t testing.TB, ctx context.Context, adm *kadm.Client, topic string, partitions int32) {
	t.Helper()
	for {
		offs, err := adm.ListEndOffsets(ctx, topic)
		n := 0
		if err == nil {
			offs.Each(func(o kadm.ListedOffset) {
				if o.Err == nil {
					n++
				}
			})
			if n == int(partitions) {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("topic %s: %d of %d partitions hosted before the hang guard (err %v)", topic, n, partitions, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
