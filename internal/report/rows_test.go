package report

import (
	"testing"

	"github.com/kbench/kbench/internal/result"
)

// TestTotalLabel: a total row says what it adds; phases in sequence get
// their records added but not their rates (the row's rate cells are empty).
func TestTotalLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a    result.Aggregate
		want string
	}{
		{result.Aggregate{Producers: []string{"a", "b"}, Consumers: []string{"r"}}, "total: a + b + r"},
		{result.Aggregate{Producers: []string{"writers", "latency"}, ProducersInSequence: true, Consumers: []string{"readers"}},
			"total: writers + latency (in sequence: records added, not rates) + readers"},
		{result.Aggregate{Consumers: []string{"r1", "r2"}, ConsumersInSequence: true}, "total: r1 + r2 (in sequence: rates not added)"},
	}
	for _, tt := range tests {
		if got := totalLabel(&tt.a); got != tt.want {
			t.Errorf("totalLabel = %q, want %q", got, tt.want)
		}
	}
}
