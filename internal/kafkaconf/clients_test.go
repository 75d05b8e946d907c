package kafkaconf

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestProducerClientIDs: client i's client.id and transactional.id come
// from one rule for plans and drop-ins alike. Regression: the plan path
// once lost the per-client transactional ids the drop-in had, and two
// clients sharing one id fenced each other.
func TestProducerClientIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, clientID, txID, workload string
		clients                        int
		wantIDs, wantTx                []string
	}{
		{"drop-in, one producer", "perf-producer-client", "", "", 1, []string{"perf-producer-client"}, nil},
		{"drop-in, --producers 3", "perf-producer-client", "tx", "", 3,
			[]string{"perf-producer-client", "perf-producer-client-1", "perf-producer-client-2"}, []string{"tx", "tx-1", "tx-2"}},
		{"plan, clients: 1", "kbench", "tx", "writers", 1, []string{"kbench-writers-0"}, []string{"tx"}},
		{"plan, clients: 3", "kbench", "tx", "writers", 3,
			[]string{"kbench-writers-0", "kbench-writers-1", "kbench-writers-2"}, []string{"tx", "tx-1", "tx-2"}},
	}
	for _, tt := range tests {
		props := []Prop{{Key: "bootstrap.servers", Value: "127.0.0.1:9092"}, {Key: "client.id", Value: tt.clientID}}
		if tt.txID != "" {
			props = append(props, Prop{Key: "transactional.id", Value: tt.txID})
		}
		pc, _, err := ParseProducer(props)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for i := range tt.clients {
			cl, err := kgo.NewClient(pc.ClientOpts(tt.workload, i)...)
			if err != nil {
				t.Fatalf("%s: client %d: %v", tt.name, i, err)
			}
			id, _ := cl.OptValue(kgo.ClientID).(string)
			tx, _ := cl.OptValue(kgo.TransactionalID).(string)
			cl.Close()
			if id != tt.wantIDs[i] {
				t.Errorf("%s: client %d: client.id %q, want %q", tt.name, i, id, tt.wantIDs[i])
			}
			if tt.wantTx != nil && tx != tt.wantTx[i] {
				t.Errorf("%s: client %d: transactional.id %q, want %q", tt.name, i, tx, tt.wantTx[i])
			}
		}
	}
}

// TestConsumerClientIDs: consumer client i's client.id, by the one rule
// for plans (workload named) and drop-ins (workload "").
func TestConsumerClientIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, clientID, group, workload string
		want                            []string
	}{
		{"drop-in: one id shared", "perf-consumer-client", "g", "", []string{"perf-consumer-client", "perf-consumer-client"}},
		{"plan, client.id set", "kbench", "g", "readers", []string{"kbench-readers-0", "kbench-readers-1"}},
		{"plan, none: Java's numbering", "", "g", "readers", []string{"consumer-g-1", "consumer-g-2"}},
		{"plan, no group", "", "", "readers", []string{"consumer-null-1", "consumer-null-2"}},
	}
	for _, tt := range tests {
		props := []Prop{{Key: "bootstrap.servers", Value: "127.0.0.1:9092"}}
		if tt.clientID != "" {
			props = append(props, Prop{Key: "client.id", Value: tt.clientID})
		}
		if tt.group != "" {
			props = append(props, Prop{Key: "group.id", Value: tt.group})
		}
		cc, _, err := ParseConsumer(props)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for i, want := range tt.want {
			if got := cc.ClientIDOf(tt.workload, i); got != want {
				t.Errorf("%s: client %d: %q, want %q", tt.name, i, got, want)
			}
		}
	}
}
