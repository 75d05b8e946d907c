package sizing

import (
	"math"

	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

// Bounds of the inputs. Past them the question is not a Kafka topic's any
// more (or a unit is wrong), and the figures would lose their exactness.
const (
	minRate       = 1             // records/s: below, there is nothing to size
	maxRate       = 1e9           // records/s, far past any one cluster
	minRecordSize = 1             // bytes
	maxRecordSize = math.MaxInt32 // bytes: Kafka sizes records with a 32-bit count
	minRetention  = 1             // seconds
	maxRetention  = 100 * 365 * 86400
	maxBrokers    = 10000
	maxConsumers  = 10000
	maxHeadroom   = 10 // a fraction: 1,000%
	// maxPartitions bounds the partitions needed: a KRaft cluster's tested
	// limit is in the low millions, for all its topics together.
	maxPartitions = 1_000_000
	// maxFigure bounds every byte figure: below 2^53 a float64 holds whole
	// bytes exactly, so "all replicas = one copy × 3" stays true digit for
	// digit. It is about 9 PB.
	maxFigure = 1 << 53
)

// fig rounds a figure as the report prints it: whole units from a billion
// on, else hundredths. Every figure is computed from the rounded figures it
// is printed as computed from, so the arithmetic shown adds up.
func fig(v float64) float64 {
	if math.Abs(v) >= 1e9 {
		return math.Round(v)
	}
	return math.Round(v*100) / 100
}

// rounded returns in with its inputs rounded as they are printed: rates and
// sizes to hundredths, retention to whole seconds, headroom to hundredths
// of a percent.
func rounded(in Input) Input {
	in.Rate.PerSec = fig(in.Rate.PerSec)
	in.RecordSize.Bytes = fig(in.RecordSize.Bytes)
	in.Retention.Seconds = math.Round(in.Retention.Seconds)
	in.Headroom.Fraction = math.Round(in.Headroom.Fraction*1e4) / 1e4
	return in
}

// checkBounds refuses inputs outside the ranges kbench size plans for.
func checkBounds(in Input) error {
	switch {
	case in.Rate.PerSec > maxRate:
		return userr.Errorf("--rate %s: more than %s records/s, beyond any Kafka cluster; check the unit (%s)", in.Rate.Text, num(maxRate), units.RateForms)
	case in.Rate.PerSec < minRate:
		return userr.Errorf("--rate %s: less than %d record/s, too little to size; plan for at least 1/s", in.Rate.Text, minRate)
	case in.RecordSize.Bytes > maxRecordSize:
		return userr.Errorf("--record-size %s: more than %s B, the most a Kafka record can hold; check the unit (%s)", in.RecordSize.Text, num(maxRecordSize), units.SizeForms)
	case in.RecordSize.Bytes < minRecordSize:
		return userr.Errorf("--record-size %s: less than 1 B; %s", in.RecordSize.Text, units.SizeForms)
	case in.Retention.Seconds > maxRetention:
		return userr.Errorf("--retention %s: more than 100 years; check the unit (%s)", in.Retention.Text, units.DurationForms)
	case in.Retention.Seconds < minRetention:
		return userr.Errorf("--retention %s: less than 1 s; %s", in.Retention.Text, units.DurationForms)
	case in.Brokers > maxBrokers:
		return userr.Errorf("--brokers %d: kbench size plans for at most %s brokers", in.Brokers, num(maxBrokers))
	case in.Consumers > maxConsumers:
		return userr.Errorf("--consumers %d: kbench size plans for at most %s consumer groups", in.Consumers, num(maxConsumers))
	case in.Headroom.Fraction > maxHeadroom:
		return userr.Errorf("--headroom %q: more than 1,000%%; %s", in.Headroom.Text, headroomForms)
	}
	for _, p := range []*PartitionRate{in.Measured.Producer, in.Measured.Consumer} {
		if p != nil && p.RecordsPerSec > 0 && in.Rate.PerSec/p.RecordsPerSec > maxPartitions {
			return userr.Errorf("per-partition rate from %s: %s rec/s needs more than %s partitions at %s rec/s each, more than a Kafka cluster holds; check that rate",
				p.From, num(in.Rate.PerSec), num(maxPartitions), num(p.RecordsPerSec))
		}
	}
	return nil
}

// checkFigures refuses estimates whose figures pass maxFigure.
func checkFigures(e *Estimate) error {
	largest := max(e.ReplicatedHeadroomBytes, e.ReplicatedBytes, e.InPerBrokerBytesPerSec, e.OutPerBrokerBytesPerSec)
	if largest >= maxFigure {
		return userr.Errorf("the estimate reaches %s B (%s), more than kbench size counts exactly (about 9 PB): check --rate, --record-size, --retention and --consumers",
			num(largest), both(largest, 1, ""))
	}
	return nil
}
