package consume

import (
	"time"

	"github.com/kbench/kbench/internal/workload/engine"
)

// partitionCatchUp is when one partition first returned a record sent
// after the consumer started: its share of the backlog was read. records
// is how many records the run had read by then (to that poll).
type partitionCatchUp struct {
	at      time.Duration // since the start
	records int64
}

// caughtUpAt records, in the client's poll loop, that partition tp of this
// client returned its first record sent after the start.
func (c *Client) caughtUpAt(tp engine.TopicPartition, nowNs int64) {
	if c.drained == nil {
		c.drained = map[engine.TopicPartition]partitionCatchUp{}
	}
	c.drained[tp] = partitionCatchUp{at: time.Duration(nowNs - c.cr.start.UnixNano()), records: c.cr.consumed.Load()}
}

// Drain is how a consumer that started on a backlog caught up, partition
// by partition (with latency measured; see ConsumerResult.CaughtUp).
type Drain struct {
	// Partitions is how many partitions the consumer read, and CaughtUp
	// how many of them returned a record sent after it started.
	Partitions, CaughtUp int
	// Last is when the last partition to catch up did (0 unless every
	// partition did): the whole backlog was read. LastRecords is how many
	// records had been read by then.
	Last        time.Duration
	LastRecords int64
}

// drainOf merges the clients' partitions (a partition that moved between
// clients counts at the first that caught it up) over the topics'
// partitions.
func drainOf(clients []*Client, topics map[string]int) Drain {
	first := map[engine.TopicPartition]partitionCatchUp{}
	for _, c := range clients {
		for tp, cu := range c.drained {
			if was, ok := first[tp]; !ok || cu.at < was.at {
				first[tp] = cu
			}
		}
	}
	var d Drain
	for _, n := range topics {
		d.Partitions += n
	}
	d.CaughtUp = len(first)
	if d.CaughtUp < d.Partitions || d.Partitions == 0 {
		return d
	}
	for _, cu := range first {
		if cu.at > d.Last {
			d.Last, d.LastRecords = cu.at, cu.records
		}
	}
	return d
}
