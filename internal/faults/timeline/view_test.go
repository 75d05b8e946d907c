package timeline

import (
	"context"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
)

// fakeView is a cluster in memory, for timeline tests in a synctest
// bubble (franz-go's kfake talks over sockets, which a bubble's clock does
// not wait for): brokers 1 to 3, topic "t" with 3 partitions, partition p
// led by broker p+1, every replica in sync.
type fakeView struct {
	mu     sync.Mutex
	parts  map[int32]*kadm.PartitionDetail
	quorum int32
	closed bool
}

func newFakeView() *fakeView {
	v := &fakeView{parts: map[int32]*kadm.PartitionDetail{}, quorum: 1}
	for p := int32(0); p < 3; p++ {
		v.parts[p] = &kadm.PartitionDetail{Topic: "t", Partition: p, Leader: p + 1, LeaderEpoch: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}}
	}
	return v
}

func (v *fakeView) metadata(ctx context.Context, topics ...string) (kadm.Metadata, error) {
	if err := ctx.Err(); err != nil {
		return kadm.Metadata{}, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	ps := kadm.PartitionDetails{}
	for p, d := range v.parts {
		ps[p] = *d
	}
	return kadm.Metadata{Controller: v.quorum, Topics: kadm.TopicDetails{"t": {Topic: "t", Partitions: ps}}}, nil
}

func (v *fakeView) quorumLeader(context.Context) (int32, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.quorum, nil
}

func (v *fakeView) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.closed = true
}

// leader is partition p's leader.
func (v *fakeView) leader(p int32) int32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.parts[p].Leader
}

// move gives every partition broker leads to broker to, with a new leader
// epoch (also when to is broker: it came back and leads again).
func (v *fakeView) move(broker, to int32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, d := range v.parts {
		if d.Leader == broker {
			d.Leader = to
			d.LeaderEpoch++
		}
	}
}

// next is the broker after b, as a controller would pick it.
func next(b int32) int32 { return b%3 + 1 }
