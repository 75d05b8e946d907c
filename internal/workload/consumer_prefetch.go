package workload

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// runPrefetched is a group or assigned consumer's poll loop: it polls on
// its own goroutine, one poll ahead of the handling, and hands the
// records on max.poll.records at a time. franz-go fetches from a broker
// again only once its buffered fetch is polled empty, so a loop that
// polled max.poll.records and handled them left every broker idle while
// it handled; librdkafka keeps fetching ahead (bench/consumer.sh read
// 0.68× its records/s at 1000 B on 3 brokers). Polling everything
// buffered as soon as it is there lets franz-go fetch again while the
// previous records are handled.
func (c *consumerClient) runPrefetched(ctx context.Context) error {
	polls := make(chan kgo.Fetches, 1)
	pollCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(polls)
		for {
			fs := c.cl.PollFetches(pollCtx)
			if pollCtx.Err() != nil {
				return // the run ended while polling; what came back is past its end
			}
			select {
			case polls <- fs:
			case <-pollCtx.Done():
				return
			}
		}
	}()
	defer func() {
		stop()
		wg.Wait()
	}()
	for fs := range polls {
		for _, chunk := range splitFetches(fs, c.maxPoll) {
			if ctx.Err() != nil {
				return nil
			}
			if err := c.handle(chunk, time.Now()); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitFetches cuts fs into pieces of at most n records (n ≤ 0: one
// piece), in order; a partition's error goes with its first piece.
func splitFetches(fs kgo.Fetches, n int) []kgo.Fetches {
	if n <= 0 || fs.NumRecords() <= n {
		return []kgo.Fetches{fs}
	}
	var out []kgo.Fetches
	var cur kgo.Fetches
	room := n
	add := func(topic string, p kgo.FetchPartition) {
		if len(cur) == 0 {
			cur = kgo.Fetches{{}}
		}
		f := &cur[0]
		if len(f.Topics) == 0 || f.Topics[len(f.Topics)-1].Topic != topic {
			f.Topics = append(f.Topics, kgo.FetchTopic{Topic: topic})
		}
		t := &f.Topics[len(f.Topics)-1]
		t.Partitions = append(t.Partitions, p)
	}
	for _, f := range fs {
		for _, t := range f.Topics {
			for _, p := range t.Partitions {
				recs := p.Records
				first := true
				for first || len(recs) > 0 {
					take := min(room, len(recs))
					piece := p
					piece.Records = recs[:take]
					if !first {
						piece.Err = nil
					}
					add(t.Topic, piece)
					recs, room, first = recs[take:], room-take, false
					if room == 0 {
						out = append(out, cur)
						cur, room = nil, n
					}
				}
			}
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
