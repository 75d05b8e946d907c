package timeline

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMergeNewer: regression: a leader cut off from the quorum while
// clients reach it kept naming itself leader at its old epoch; when the
// timeline's metadata came from it, the election that did happen was
// reported as "not within 120 s". The newest epoch any broker names wins.
func TestMergeNewer(t *testing.T) {
	answer := func(topic string, part, leader, epoch int32, isr ...int32) *kmsg.MetadataResponse {
		p := kmsg.NewMetadataResponseTopicPartition()
		p.Partition, p.Leader, p.LeaderEpoch, p.ISR = part, leader, epoch, isr
		tp := kmsg.NewMetadataResponseTopic()
		tp.Topic = kmsg.StringPtr(topic)
		tp.Partitions = []kmsg.MetadataResponseTopicPartition{p}
		return &kmsg.MetadataResponse{Topics: []kmsg.MetadataResponseTopic{tp}}
	}
	tests := []struct {
		name       string
		resp       *kmsg.MetadataResponse
		wantLeader int32
		wantEpoch  int32
		wantISR    int
	}{
		{"a newer leader elsewhere", answer("cut", 0, 2, 6, 2, 3), 2, 6, 2},
		{"the same epoch", answer("cut", 0, 3, 5, 3), 1, 5, 3},
		{"an older epoch", answer("cut", 0, 3, 4, 3), 1, 5, 3},
		{"no leader, newer epoch", answer("cut", 0, -1, 7), -1, 7, 0},
		{"another topic", answer("other", 0, 2, 9), 1, 5, 3},
		{"another partition", answer("cut", 1, 2, 9), 1, 5, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := kadm.Metadata{Topics: kadm.TopicDetails{"cut": {Topic: "cut", Partitions: kadm.PartitionDetails{
				0: {Topic: "cut", Partition: 0, Leader: 1, LeaderEpoch: 5, ISR: []int32{1, 2, 3}},
			}}}}
			mergeNewer(&m, tt.resp)
			got := m.Topics["cut"].Partitions[0]
			if got.Leader != tt.wantLeader || got.LeaderEpoch != tt.wantEpoch || len(got.ISR) != tt.wantISR {
				t.Fatalf("leader %d epoch %d isr %v, want leader %d epoch %d and %d in the ISR", got.Leader, got.LeaderEpoch, got.ISR, tt.wantLeader, tt.wantEpoch, tt.wantISR)
			}
		})
	}
}

// TestFreshestAsksEveryBrokerAtOnce: regression: freshest sent one shared
// MetadataRequest to every broker at once, and franz-go sets a request's
// version per broker, so under -race this reported a data race (as did
// TestTimelineEnd and TestTimelineElectionBelongsToItsFault, which poll
// through it). Each broker now gets its own request.
func TestFreshestAsksEveryBrokerAtOnce(t *testing.T) {
	_, opts := cluster(t)
	v, err := newClientView(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.close)
	for range 5 {
		m, err := v.metadata(t.Context(), "t")
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Brokers) != 3 || len(m.Topics["t"].Partitions) != 3 {
			t.Fatalf("%d brokers, %d partitions of t: want 3 and 3", len(m.Brokers), len(m.Topics["t"].Partitions))
		}
	}
}
