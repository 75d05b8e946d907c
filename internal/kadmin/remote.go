package kadmin

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Tiers is where a topic's records are, by tier (tiered storage, KIP-405),
// from each partition's earliest offset, its earliest local offset
// (ListOffsets with EarliestLocalTimestamp, -4: KIP-1005) and its end.
// The records before a partition's earliest local offset are only in the
// remote tier.
type Tiers struct {
	// Partitions is how many partitions hold records; Moved, how many of
	// them have their oldest records only in the remote tier; Cleared,
	// how many of those hold locally nothing the remote tier has (their
	// earliest local offset is past the latest offset copied to it: the
	// local retention has caught up with the copying).
	Partitions, Moved, Cleared int
	// Records is the records the topic holds; RemoteOnly, how many of them
	// are only in the remote tier.
	Records, RemoteOnly int64
}

// Done reports whether every partition holding records has its oldest
// records only in the remote tier, and keeps locally nothing the remote
// tier has: a read from the start is served from it up to the segments
// not copied yet.
func (t Tiers) Done() bool {
	return t.Partitions > 0 && t.Moved == t.Partitions && t.Cleared == t.Partitions
}

// String says it in words.
func (t Tiers) String() string {
	if t.Partitions == 0 {
		return "no partition holds records yet"
	}
	pct := 0.0
	if t.Records > 0 {
		pct = 100 * float64(t.RemoteOnly) / float64(t.Records)
	}
	return fmt.Sprintf("%d of %d partitions have their oldest records only in the remote tier (%.0f%% of %d records)",
		t.Moved, t.Partitions, pct, t.Records)
}

// TiersOf reads where the topic's records are.
func TiersOf(ctx context.Context, adm *kadm.Client, topic string) (Tiers, error) {
	var t Tiers
	start, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = start.Error()
	}
	if err != nil {
		return t, fmt.Errorf("list the start offsets of topic %q: %w", topic, err)
	}
	local, err := adm.ListLocalLogStartOffsets(ctx, topic)
	if err == nil {
		err = local.Error()
	}
	if err != nil {
		return t, fmt.Errorf("list the local start offsets of topic %q (tiered storage needs Kafka 3.6 or newer; this listing 3.9): %w", topic, err)
	}
	copied, err := adm.ListLatestRemoteOffsets(ctx, topic)
	if err == nil {
		err = copied.Error()
	}
	if err != nil {
		return t, fmt.Errorf("list the latest offsets copied to the remote tier of topic %q (needs Kafka 3.9 or newer): %w", topic, err)
	}
	end, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = end.Error()
	}
	if err != nil {
		return t, fmt.Errorf("list the end offsets of topic %q: %w", topic, err)
	}
	start.Each(func(s kadm.ListedOffset) {
		e, ok := end.Lookup(topic, s.Partition)
		l, lok := local.Lookup(topic, s.Partition)
		if !ok || !lok || e.Offset <= s.Offset {
			return
		}
		t.Partitions++
		t.Records += e.Offset - s.Offset
		if l.Offset > s.Offset {
			t.Moved++
			t.RemoteOnly += min(l.Offset, e.Offset) - s.Offset
			if c, ok := copied.Lookup(topic, s.Partition); ok && l.Offset > c.Offset {
				t.Cleared++
			}
		}
	})
	return t, nil
}

// remoteSettle is how long the tiers must stay done and unchanged before
// WaitRemote returns: longer than a kbench tiered cluster's 1 s copying
// and retention tasks, so the segments closed when the writers ended are
// copied and gone locally. (Done alone opened after 0.5 s with 12% to 36%
// of a 60 MB backlog only remote: the first segments had moved, the rest
// not yet.) A cluster with Kafka's default intervals (30 s, 5 min) may
// still be moving segments after it.
const remoteSettle = 2 * time.Second

// WaitRemote waits until every partition of topic that holds records has
// its oldest records only in the remote tier and nothing copied left
// locally (Tiers.Done), unchanged for remoteSettle, asking every poll
// (500 ms), for at most bound. say is called with the tiers at the start,
// every sayEvery while it waits, and at the end. The error names the
// topic, the bound and where the records were at the last look.
func WaitRemote(ctx context.Context, opts []kgo.Opt, topic string, bound, sayEvery time.Duration, say func(Tiers)) (Tiers, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return Tiers{}, fmt.Errorf("create admin client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	const poll = 500 * time.Millisecond
	var last Tiers
	var said, doneSince time.Time
	for {
		t, err := Await(ctx, func(ctx context.Context) (Tiers, error) { return TiersOf(ctx, adm, topic) })
		if err == nil {
			if !t.Done() || t != last {
				doneSince = time.Now()
			}
			last = t
			settled := t.Done() && time.Since(doneSince) >= remoteSettle
			if settled || said.IsZero() || time.Since(said) >= sayEvery {
				said = time.Now()
				say(t)
			}
			if settled {
				return t, nil
			}
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				if err != nil {
					return last, fmt.Errorf("topic %q: its records had not moved to the remote tier after %s: %w", topic, bound, err)
				}
				return last, fmt.Errorf("topic %q: its records had not moved to the remote tier after %s (%s); is remote.storage.enable=true with a small local.retention.ms or local.retention.bytes, and do its segments roll (segment.bytes)?", topic, bound, last)
			}
			return last, ctx.Err()
		case <-time.After(poll):
		}
	}
}
