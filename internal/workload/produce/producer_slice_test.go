package produce

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/load"
)

// TestSliceProducer: the workers' slices of a producer add up to it:
// clients, records, warm-up, rate, users and stage rates; each slice's
// client i is the workload's client first+i (its id and its tracker).
func TestSliceProducer(t *testing.T) {
	tests := []struct {
		name        string
		spec        ProducerSpec
		of          int
		wantClients []int // per worker; 0: runs none
	}{
		{"even", ProducerSpec{Clients: 3, Records: 3000, Warmup: 300, Rate: 300}, 3, []int{1, 1, 1}},
		{"uneven", ProducerSpec{Clients: 5, Records: 7, Rate: 10}, 2, []int{3, 2}},
		{"fewer clients than workers", ProducerSpec{Clients: 1, Records: 100, Rate: 50}, 3, []int{1, 0, 0}},
		{"virtual users", ProducerSpec{Clients: 4, VUs: 10, Records: 1001}, 4, []int{1, 1, 1, 1}},
		{"stages", ProducerSpec{Clients: 2, Stages: []load.Stage{{Rate: 100}, {Rate: 1000}}}, 2, []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids []int
			tt.spec.ClientOpts = func(i int) []kgo.Opt { ids = append(ids, i); return nil }
			var records, warmup int64
			var rate, stage1 float64
			vus := 0
			for w := range tt.of {
				sp, ok, err := Slice(tt.spec, w, tt.of)
				if err != nil {
					t.Fatal(err)
				}
				if ok != (tt.wantClients[w] > 0) {
					t.Fatalf("worker %d runs a share: %v, want %d clients", w, ok, tt.wantClients[w])
				}
				if !ok {
					continue
				}
				if sp.Clients != tt.wantClients[w] {
					t.Errorf("worker %d: %d clients, want %d", w, sp.Clients, tt.wantClients[w])
				}
				for i := range sp.Clients {
					sp.ClientOpts(i)
				}
				records += sp.Records
				warmup += sp.Warmup
				rate += sp.Rate
				vus += sp.VUs
				if len(sp.Stages) > 0 {
					stage1 += sp.Stages[1].Rate
				}
			}
			if records != tt.spec.Records || warmup != tt.spec.Warmup || rate != tt.spec.Rate || vus != tt.spec.VUs {
				t.Errorf("slices add up to %d records, %d warm-up, %v records/s, %d users; want %d, %d, %v, %d",
					records, warmup, rate, vus, tt.spec.Records, tt.spec.Warmup, tt.spec.Rate, tt.spec.VUs)
			}
			if len(tt.spec.Stages) > 0 && stage1 != tt.spec.Stages[1].Rate {
				t.Errorf("stage rates add up to %v, want %v", stage1, tt.spec.Stages[1].Rate)
			}
			for i, id := range ids {
				if id != i {
					t.Fatalf("client ids %v: want each of the workload's clients once, in order", ids)
				}
			}
			if len(ids) != max(tt.spec.Clients, 1) {
				t.Errorf("client ids %v, want %d", ids, tt.spec.Clients)
			}
		})
	}
}
