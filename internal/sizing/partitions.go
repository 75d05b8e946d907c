package sizing

import "math"

// ruleOfThumb is the MSK partition study's latency rule: at most 100 × b × r partitions per
// broker, b brokers and replication r, counting every replica a broker hosts.
const ruleOfThumb = 100

// Partitions is the partition guidance for the topic.
type Partitions struct {
	ForProducers int // ⌈rate / per-partition producer rate⌉; 0 when not measured
	ForConsumers int // ⌈rate / per-partition consumer rate⌉; 0 when not measured
	Needed       int // the larger of the two; 0 when neither is measured
	// Recommended is Needed rounded up to a multiple of the broker count, so
	// that leaders, and with them load, spread evenly.
	Recommended       int
	CeilingPerBroker  int     // 100 × brokers × replication
	ReplicasPerBroker float64 // Recommended × replication / brokers
	MaxForTopic       int     // partitions this topic alone may have under the ceiling
}

func partitionsFor(in Input) Partitions {
	b, r := in.Brokers, in.Replication
	p := Partitions{
		CeilingPerBroker: ruleOfThumb * b * r,
		MaxForTopic:      ruleOfThumb * b * r * b / r,
	}
	p.ForProducers = needed(in.Rate.PerSec, in.Measured.Producer)
	p.ForConsumers = needed(in.Rate.PerSec, in.Measured.Consumer)
	p.Needed = max(p.ForProducers, p.ForConsumers)
	if p.Needed > 0 {
		p.Recommended = (p.Needed + b - 1) / b * b
		p.ReplicasPerBroker = float64(p.Recommended*r) / float64(b)
	}
	return p
}

// needed is how many partitions carry rate when one carries pr; 0 when pr is
// unknown. The small tolerance keeps 10,000 / 2,500 at 4, not 5, whatever the
// float rounding.
func needed(rate float64, pr *PartitionRate) int {
	if pr == nil || pr.RecordsPerSec <= 0 {
		return 0
	}
	return max(1, int(math.Ceil(rate/pr.RecordsPerSec-1e-9)))
}
