package workload

import "github.com/kbench/kbench/internal/measure"

// The measurement types moved to internal/measure, where observers read
// them without importing the engines. These aliases keep the engines'
// code and tests compiling while the callers move.
type (
	Interval         = measure.Interval
	ConsumerInterval = measure.ConsumerInterval
	LagSample        = measure.LagSample
	Stall            = measure.Stall
)
