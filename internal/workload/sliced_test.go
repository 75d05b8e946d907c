package workload

import (
	"testing"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/workload/consume"
	"github.com/kbench/kbench/internal/workload/produce"
)

// TestSliceRefused: what cannot be split yet says so; a worker index
// outside the workers is an error.
func TestSliceRefused(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec Spec
		i    int
	}{
		{"user ramp", Produce{Spec: produce.ProducerSpec{Clients: 2, VURamp: &load.VURamp{}}}, 0},
		{"balanced producer", Produce{Spec: produce.ProducerSpec{Clients: 2, Balance: &load.Balance{}}}, 0},
		{"balanced consumer", Consume{Spec: consume.ConsumerSpec{Clients: 2, Balance: &load.Balance{}}}, 0},
		{"index out of range", Produce{Spec: produce.ProducerSpec{Clients: 2}}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := tt.spec.(Sliced).Slice(tt.i, 2); err == nil {
				t.Fatal("sliced")
			}
		})
	}
}
