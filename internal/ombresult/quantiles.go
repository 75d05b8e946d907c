package ombresult

import (
	"math"

	"github.com/kbench/kbench/internal/measure"
)

// Quantile is one entry of OMB's aggregated*Quantiles maps: a percentile
// (0 to 100) and the latency at it.
type Quantile struct {
	Percentile float64
	Value      float64
}

// ticksPerHalfDistance is what OMB passes to HdrHistogram's
// percentiles(100): 100 reporting steps per halving of the distance to
// 100%.
const ticksPerHalfDistance = 100

// quantiles walks h as Java HdrHistogram's PercentileIterator does with
// 100 ticks per half distance, and returns what OMB puts in its TreeMap:
// for each bucket the iterator stops at, the percentile of the values up
// to it (100 × count so far ÷ total, as getPercentile() reports it) and
// the bucket's highest value, kept within the exact min and max as every
// kbench percentile is; then 100.0 at the maximum. Values are divided by
// unit (inMs, inUs). An empty histogram
// gives none, as OMB's empty TreeMap.
func quantiles(h *measure.Histogram, unit float64) []Quantile {
	total := h.Count()
	if total == 0 {
		return nil
	}
	var out []Quantile
	level := 0.0 // percentileLevelToIterateTo
	var cum int64
	for _, b := range h.Buckets() {
		cum += b.Count
		pct := 100 * float64(cum) / float64(total)
		if pct < level {
			continue
		}
		v := float64(min(max(b.Highest, h.Min()), h.Max())) / unit
		out = append(out, Quantile{Percentile: pct, Value: v})
		if cum >= total {
			break
		}
		// The iterator returns once per level it passes: the same
		// percentile again each time, which the map keeps once.
		for level <= pct {
			level += nextStep(level)
		}
	}
	// The last step to 100% is the bucket reached last (the maximum).
	if last := &out[len(out)-1]; last.Percentile != 100 {
		out = append(out, Quantile{Percentile: 100, Value: float64(h.Max()) / unit})
	}
	return out
}

// nextStep is PercentileIterator.incrementIterationLevel's step from
// level: 100 ÷ (ticks × 2^(⌊log2(100 ÷ (100 − level))⌋ + 1)).
func nextStep(level float64) float64 {
	halvings := math.Floor(math.Log(100/(100-level)) / math.Log(2))
	ticks := ticksPerHalfDistance * math.Pow(2, halvings+1)
	return 100 / ticks
}
