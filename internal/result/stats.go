package result

import (
	"fmt"
	"math"
	"sort"
)

// UnstableCV is the coefficient of variation of records/s between repeats
// above which a scenario is flagged: its repeats disagree too much for
// their mean to stand for the scenario.
const UnstableCV = 0.10

// ShortSteadySeconds is the steady window under which a scenario is
// flagged: a rate and percentiles over a fraction of a second say little
// (steady windows of 0.10-0.33 s printed 2,119,291 ± 813,605 records/s
// without a remark).
const ShortSteadySeconds = 3.0

// ShortSteadyAdvice is the warning for a steady window of seconds under
// ShortSteadySeconds, with what to change.
func ShortSteadyAdvice(seconds float64) string {
	return fmt.Sprintf("short steady window: %.2f s after the warm-up, under %.0f s, too little for a steady rate or percentiles; run longer (duration, or records) or shorten the warm-up (warmup, --warmup-records)", seconds, ShortSteadySeconds)
}

// Stats describes a sample of repeats of a quantity that cannot be
// negative (rates, latencies, counts, seconds). Stdev is the sample
// standard deviation (n-1). The 95% confidence interval of the mean is
// computed on the logarithm of the mean (the delta method: the mean ×/÷
// exp(t·Stdev/(Mean·√n)), Student's t with n-1 degrees of freedom), so it
// is never negative and widens upwards as much as a rate or a latency can;
// for a small spread it is the usual mean ± t·Stdev/√n. It is given from
// MinCIRepeats repeats on: with two, t is 12.7 and the interval spans far
// beyond anything possible (a p99 of 100 ms ± 1 s); with one there is no
// spread at all.
type Stats struct {
	N        int      `json:"n"`
	Mean     float64  `json:"mean"`
	Median   float64  `json:"median"`
	Min      float64  `json:"min"`
	Max      float64  `json:"max"`
	Stdev    float64  `json:"stdev"`
	CI95Low  *float64 `json:"ci95_low,omitempty"`
	CI95High *float64 `json:"ci95_high,omitempty"`
	CV       float64  `json:"cv"` // Stdev / Mean; 0 when the mean is 0
}

// MinCIRepeats is the fewest repeats a confidence interval is given for.
const MinCIRepeats = 3

// tTable holds Student's t for a two-sided 95% interval, by degrees of
// freedom 1..30; beyond, the normal quantile is within 1.5%.
var tTable = [...]float64{
	12.706204736174707, 4.302652729749464, 3.182446305284263, 2.7764451051977987, 2.5705818356363146,
	2.4469118511449692, 2.3646242515927844, 2.3060041352041662, 2.2621571627982053, 2.2281388519862744,
	2.200985160082949, 2.1788128296634177, 2.1603686564627917, 2.1447866879178035, 2.131449545559323,
	2.1199052992210112, 2.1098155778331806, 2.100922040241039, 2.093024054408307, 2.0859634472658364,
	2.0796138447276626, 2.0738730679040147, 2.0686576104190406, 2.0638985616280205, 2.059538552753294,
	2.055529438642871, 2.0518305164802833, 2.048407141795244, 2.045229642132703, 2.0422724563012373,
}

// t95 is Student's t quantile for a two-sided 95% interval with df degrees
// of freedom.
func t95(df int) float64 {
	if df <= len(tTable) {
		return tTable[df-1]
	}
	return 1.959963984540054
}

// Describe computes the statistics of xs; an empty sample gives N = 0.
func Describe(xs []float64) Stats {
	n := len(xs)
	if n == 0 {
		return Stats{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	st := Stats{N: n, Mean: sum / float64(n), Min: s[0], Max: s[n-1]}
	if n%2 == 1 {
		st.Median = s[n/2]
	} else {
		st.Median = (s[n/2-1] + s[n/2]) / 2
	}
	if n > 1 {
		var ss float64
		for _, x := range s {
			ss += (x - st.Mean) * (x - st.Mean)
		}
		st.Stdev = math.Sqrt(ss / float64(n-1))
	}
	if st.Mean != 0 {
		st.CV = st.Stdev / math.Abs(st.Mean)
	}
	if n >= MinCIRepeats {
		lo, hi := interval(st.Mean, st.Stdev, n, s[0] < 0)
		st.CI95Low, st.CI95High = &lo, &hi
	}
	return st
}

// interval is the 95% confidence interval of a mean of n values: on the
// logarithm of the mean when the values cannot be negative (see Stats), the
// plain t interval otherwise.
func interval(mean, stdev float64, n int, negative bool) (lo, hi float64) {
	se := t95(n-1) * stdev / math.Sqrt(float64(n))
	if negative {
		return mean - se, mean + se
	}
	if mean == 0 {
		return 0, 0 // every value was 0
	}
	f := math.Exp(se / mean)
	return mean / f, mean * f
}
