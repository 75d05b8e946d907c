// Package coord coordinates the workers of one distributed run through the
// Kafka cluster under test: every worker already reaches it, so kbench
// needs no other service. A run has two topics named from its run id: a
// control topic on which workers announce themselves, heartbeat, meet at
// barriers and learn the common start, and a results topic on which each
// publishes its result slices for worker 0 (or `kbench collect`) to merge.
//
// The control topic has two partitions, so that what a worker reads does
// not grow with the number of workers: the broadcast partition (0), which
// every worker reads, carries announcements, clock pings and what worker 0
// says (its heartbeats, barrier releases and call-offs, stops, verdicts,
// the end); worker 0's partition (1), which only worker 0 reads, carries
// what only worker 0 acts on (the others' heartbeats and leaves, every
// worker's arrival at a barrier). Worker 0 therefore judges every worker
// lost or not, the others only worker 0.
//
// What a worker checks on joining, each a user error naming the problem:
// an index out of range, another worker with its index, workers of another
// plan, kbench version or worker count on the run id, and a run id whose
// run has ended (in use). Nothing is written to a run's topics before the
// checks that can be made without them pass; a worker that finds another
// run's announcements writes one refusal record (so that the workers
// waiting for its index learn why it will not come) and nothing more.
//
// A record is believed only from the process that joined with its worker
// index (its instance, in its hello): anyone can write to the cluster's
// topics, and a leave or an end written by another client must not end a
// run. Records from elsewhere, and records that are not kbench's, are
// counted and ignored (Worker.Foreign).
package coord

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

// Run identifies one worker of a distributed run.
type Run struct {
	// ID names the run; every worker of it is given the same one.
	ID string
	// Workers is how many workers run the plan; Index is this one's
	// (0-based; worker 0 writes the merged results).
	Workers, Index int
	// Plan identifies the plan every worker must run (PlanDigest of its
	// text and settings); Version is kbench's.
	Plan, Version string
}

// Options bound the coordination. Zero values take the defaults.
type Options struct {
	// Heartbeat is how often a worker says it is alive (default 1s);
	// LostAfter how long the others wait without a word from it before
	// they report it lost and go on without it (default 10s).
	Heartbeat, LostAfter time.Duration
	// JoinTimeout bounds the wait for every worker to announce itself
	// (default 2m: pods of a Job start over a minute or so).
	JoinTimeout time.Duration
	// BarrierTimeout bounds a barrier's wait for the workers still alive
	// (default 5m: a worker may be preparing topics or finishing a long
	// repeat); ResultTimeout bounds worker 0's wait for the slices.
	BarrierTimeout, ResultTimeout time.Duration
	// StartMargin is how far after the last worker became ready the
	// common start is set, so every worker learns it in time (default 2s).
	StartMargin time.Duration
	// Replication of the two topics (-1 or 0: 3, or every broker of a
	// smaller cluster).
	Replication int16
	// KeepTopics leaves the run's topics on the cluster when worker 0
	// abandons the run while joining (interrupted, or a worker that left
	// or never came); without it worker 0 deletes them, as at the run's
	// end.
	KeepTopics bool
	// Log, if set, is told what a worker learns while it waits (a worker
	// refused to join), one line at a time, without a newline.
	Log func(line string)
}

func (o Options) withDefaults() Options {
	if o.Log == nil {
		o.Log = func(string) {}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Heartbeat, time.Second)
	def(&o.LostAfter, 10*time.Second)
	def(&o.JoinTimeout, 2*time.Minute)
	def(&o.BarrierTimeout, 5*time.Minute)
	def(&o.ResultTimeout, 5*time.Minute)
	def(&o.StartMargin, 2*time.Second)
	if o.Replication == 0 {
		o.Replication = -1
	}
	return o
}

// runIDPattern: the id goes into topic names, which allow [a-zA-Z0-9._-]
// and 249 characters; Kubernetes Job names are lower-case DNS labels.
var runIDPattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{0,199}$`)

// Check checks the run's identity without the cluster: what a worker can
// refuse before it writes anything.
func (r Run) Check() error {
	if err := CheckID(r.ID); err != nil {
		return userr.Errorf("--run-id %v", err)
	}
	if r.Workers < 1 {
		return userr.Errorf("--workers %d: give the number of workers, 1 or more", r.Workers)
	}
	if r.Index < 0 || r.Index >= r.Workers {
		return userr.Errorf("--worker-index %d is out of range: with --workers %d give 0 to %d", r.Index, r.Workers, r.Workers-1)
	}
	return nil
}

// CheckID checks a run id: it names the run's topics, so it is what a
// topic name allows, and a little less.
func CheckID(id string) error {
	if !runIDPattern.MatchString(id) {
		return userr.Errorf("%q: use letters, digits, '.', '_' and '-' (at most 200, starting with a letter or digit): it names the run's topics", id)
	}
	return nil
}

// Topics are the run's control and results topics.
func Topics(runID string) (control, results string) {
	return "kbench-run." + runID + ".control", "kbench-run." + runID + ".results"
}

// PlanDigest identifies a plan by its text and the settings given with
// it, so workers of different plans on one run id are refused.
func PlanDigest(text []byte, settings []string) string {
	h := sha256.New()
	h.Write(text)
	for _, s := range settings {
		fmt.Fprintf(h, "\x00%s", s)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// The control topic's partitions.
const (
	broadcast = int32(0) // every worker reads it
	toZero    = int32(1) // worker 0 alone reads it
)

// controlPartitions is how many partitions the control topic has.
const controlPartitions = 2

// Message kinds on the control topic.
const (
	kindHello     = "hello"     // a worker joins
	kindHeartbeat = "heartbeat" // it is alive
	kindPing      = "ping"      // a clock sample
	kindReady     = "ready"     // it reached a barrier
	kindStart     = "start"     // worker 0: the barrier's common start
	kindLeave     = "leave"     // it ended (Reason says how)
	kindEnd       = "end"       // worker 0: the run is over
	kindStop      = "stop"      // worker 0: stop the repeat now and publish (Reason says why)
	kindVerdict   = "verdict"   // worker 0: the merged repeat's Status and Reason
	kindRefused   = "refused"   // a worker that will not join (Reason says why), from an instance that never said hello
	kindAnnounce  = "announce"  // worker 0: a decision the others act on (a rate search's next probe), named by Barrier, in Data
)

// message is one record of the control topic (JSON, keyed by worker).
type message struct {
	Kind     string `json:"kind"`
	Worker   int    `json:"worker"`
	Instance string `json:"instance"` // one process: tells two with one index apart
	// hello
	Workers int    `json:"workers,omitempty"`
	Plan    string `json:"plan,omitempty"`
	Version string `json:"version,omitempty"`
	Host    string `json:"host,omitempty"`
	PID     int    `json:"pid,omitempty"`
	// ready and start: the barrier's name; start's common start in the
	// reference clock (Unix ms) and the workers it waited for.
	Barrier string `json:"barrier,omitempty"`
	StartMs int64  `json:"start_ms,omitempty"`
	Members []int  `json:"members,omitempty"`
	// ping: the local send time (Unix µs), to pair with the broker's time.
	SentUs int64 `json:"sent_us,omitempty"`
	// leave, stop, refused: why; start: Reason set says worker 0 called
	// the repeat off (it failed before the barrier, or the barrier timed
	// out); verdict: the merged repeat's error.
	Reason string `json:"reason,omitempty"`
	// verdict: the merged repeat's status.
	Status string `json:"status,omitempty"`
	// announce: what worker 0 decided, as the caller encoded it.
	Data json.RawMessage `json:"data,omitempty"`
}
