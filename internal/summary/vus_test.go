package summary

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/workload/produce"
)

// TestProducerSummarySaysItsVirtualUsers guards result.json's producer of
// a virtual-users workload, which said its clients but not its users: vus
// is the number of users, a ramp's peak; a result written before it loads
// with none.
func TestProducerSummarySaysItsVirtualUsers(t *testing.T) {
	t.Parallel()
	ramp, err := load.NewVURamp(1, []load.VUStage{{Duration: 150 * time.Millisecond, Target: 4}, {Duration: 150 * time.Millisecond, Target: 2}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		vus  int
		ramp *load.VURamp
		want int
	}{
		{name: "fixed", vus: 3, want: 3},
		{name: "ramp", ramp: ramp, want: 4},
		{name: "rate", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			seeds := c.ListenAddrs()
			spec := produce.ProducerSpec{Topic: "t", Values: values(t), Duration: 300 * time.Millisecond, VUs: tt.vus, VURamp: tt.ramp,
				ClientOpts: func(int) []kgo.Opt { return []kgo.Opt{kgo.SeedBrokers(seeds...)} }}
			if tt.vus == 0 && tt.ramp == nil {
				spec.Rate = 100
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := produce.RunProducer(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := Producer(res, spec.Rate, 0)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(sum)
			if err != nil {
				t.Fatal(err)
			}
			if sum.VUs != tt.want || tt.want > 0 && !strings.Contains(string(data), `"vus":`) || tt.want == 0 && strings.Contains(string(data), `"vus":`) {
				t.Errorf("vus %d, want %d (users, a ramp's peak; absent for a rate):\n%.300s", sum.VUs, tt.want, data)
			}
		})
	}
	// A producer written before vus was kept loads, with none.
	var old result.Producer
	if err := json.Unmarshal([]byte(`{"clients":1,"records":10,"bytes":1000,"failed":0,"duration_seconds":1,"records_per_sec":10,"mib_per_sec":0.001,"latency_from":"send","latency":{}}`), &old); err != nil || old.VUs != 0 || old.Clients != 1 {
		t.Errorf("old producer: %+v, %v", old, err)
	}
}
