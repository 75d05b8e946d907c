package measure

// Bucket is one non-empty bucket of a Histogram: how many values it holds
// and the highest value it stands for (HdrHistogram's highest equivalent
// value), in microseconds.
type Bucket struct {
	Highest int64
	Count   int64
}

// Buckets returns h's non-empty buckets in ascending order of value, for
// readers that walk the distribution themselves (OMB's quantile maps
// follow HdrHistogram's percentile iterator over them).
func (h *Histogram) Buckets() []Bucket {
	var out []Bucket
	for _, bar := range h.hdr().Distribution() {
		if bar.Count > 0 {
			out = append(out, Bucket{Highest: bar.To, Count: bar.Count})
		}
	}
	return out
}
