package study

import (
	"context"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kfakehold"
	"github.com/kbench/kbench/internal/workload/produce"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/runner"
)

// slowValues is a CPU-starved sender: each value costs a millisecond of
// busy work, five times the 200 µs a record has at 5000 records/s.
type slowValues struct{ payload.Source }

func (s slowValues) Value(i int64) []byte {
	for t := time.Now(); time.Since(t) < time.Millisecond; {
	}
	return s.Source.Value(i)
}

func (s slowValues) Clone(seed uint64) payload.Source { return slowValues{s.Source.Clone(seed)} }

// fakeProduceCluster is an in-process one-broker cluster with topic "t"
// whose produce requests go through control (nil: answered normally).
func fakeProduceCluster(t *testing.T, control func(hold *kfakehold.Holder, n int64, req kmsg.Request) (kmsg.Response, error, bool)) []string {
	t.Helper()
	return kfakehold.ProduceCluster(t, control)
}

// stallAt answers produce request number at only after d: the broker
// stalls with every record sent meanwhile outstanding.
func stallAt(at int64, d time.Duration) func(*kfakehold.Holder, int64, kmsg.Request) (kmsg.Response, error, bool) {
	return func(hold *kfakehold.Holder, n int64, _ kmsg.Request) (kmsg.Response, error, bool) {
		if n == at {
			hold.For(d)
		}
		return nil, nil, false
	}
}

// refuseAfter refuses every produce request after the first `after` with
// NOT_ENOUGH_REPLICAS, as a partition whose only other replica was killed
// does under acks=all.
func refuseAfter(after int64) func(*kfakehold.Holder, int64, kmsg.Request) (kmsg.Response, error, bool) {
	return func(_ *kfakehold.Holder, n int64, req kmsg.Request) (kmsg.Response, error, bool) {
		if n <= after {
			return nil, nil, false
		}
		r := req.(*kmsg.ProduceRequest)
		resp := r.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range r.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.NotEnoughReplicas.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	}
}

// TestGeneratorOfDecidesFromTheSendSchedule: regression: a fixed-rate
// producer short of its rate was called generator-bound whenever its
// buffer had not been full, also when the cluster held it back: a stall
// with thousands of records outstanding, acknowledgements arriving after
// the last send, records refused. Now only a sender that fell behind its
// own schedule makes kbench the limit; otherwise the cluster is named.
func TestGeneratorOfDecidesFromTheSendSchedule(t *testing.T) {
	t.Parallel()
	// The cluster's effects are made large beside what a loaded machine
	// does to a sender (a 5 s stall against 1 or 2 s of sending), so that
	// the verdicts hold on a machine twice as slow or twice as fast. (A
	// healthy run is left out: on a machine loaded enough, its sender does
	// fall behind by itself, and kbench is then rightly named.)
	tests := []struct {
		name    string
		control func(*kfakehold.Holder, int64, kmsg.Request) (kmsg.Response, error, bool)
		slow    bool
		rate    float64
		records int64
		dur     time.Duration
		want    string // RateLimitedBy
	}{
		// 1 s of sending; the broker stalls 5 s at its fifth request:
		// most acknowledgements arrive after the last send.
		{name: "acknowledgements after the last send", control: stallAt(5, 5*time.Second), rate: 2000, records: 2000, want: "cluster"},
		// A 5 s stall early in 2 s of sending: thousands of records
		// outstanding, the buffer far from full.
		{name: "stall with records outstanding", control: stallAt(40, 5*time.Second), rate: 2000, dur: 2 * time.Second, want: "cluster"},
		// The only other replica killed: every record after the first few
		// requests refused, over 2 s of sending.
		{name: "records refused", control: refuseAfter(3), rate: 2000, records: 4000, want: "cluster"},
		// A sender that needs 1 ms per record cannot make 5000/s.
		{name: "CPU-starved sender", slow: true, rate: 5000, dur: time.Second, want: "kbench"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seeds := fakeProduceCluster(t, tt.control)
			vals := values(t)
			if tt.slow {
				vals = slowValues{vals}
			}
			spec := produce.ProducerSpec{
				Topic: "t", Values: vals, Rate: tt.rate, Records: tt.records, Duration: tt.dur, Interval: 100 * time.Millisecond,
				ClientOpts: func(int) []kgo.Opt {
					return []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerLinger(time.Millisecond),
						kgo.RecordDeliveryTimeout(2 * time.Second), kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite()}
				},
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			res, _ := produce.RunProducer(ctx, spec)
			if res == nil {
				t.Fatal("no result")
			}
			g := generatorOf(&runner.Outcome{Start: start, End: time.Now()}, res)
			if g.RateLimitedBy != tt.want || g.Bound != (tt.want == "kbench") {
				t.Fatalf("rate limited by %q, bound %v, want %q; %s (reasons %q; acked %d of %d sent in %v, sender lag %v)",
					g.RateLimitedBy, g.Bound, tt.want, g.RateNote, g.Reasons, res.Acked, res.Acked+res.Failed, res.End.Sub(res.Start), res.SenderLag)
			}
		})
	}
}
