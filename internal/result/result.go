// Package result defines the result document: one JSON file per run, with a
// schema version, the configuration (secrets redacted), counts, throughput,
// latency percentiles and the encoded histograms, so that results can be
// merged and re-aggregated later. Learn Document first.
package result

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/measure"
	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/userr"
)

// Schema names this document format and its version. Readers accept any
// document whose schema starts with SchemaName; the version after the slash
// changes only when a field changes meaning or is removed (adding a field
// keeps the version). v2 added fields, but also a promise a reader relies
// on: every interval with latencies has its histogram, so series merge
// exactly; a v1 interval's merge is an upper bound.
const (
	SchemaName = "kbench.result"
	Schema     = SchemaName + "/v2"
	// SchemaV1 is the previous version, still read: its intervals have no
	// latency histogram (Interval.LatencyHistogram), so merging them gives
	// upper bounds (Interval.UpperBound), not exact percentiles.
	SchemaV1 = SchemaName + "/v1"
)

// Kinds of run, the value of Document.Kind.
const (
	KindProducerPerf = "producer-perf-test"
	KindConsumerPerf = "consumer-perf-test"
	KindEndToEnd     = "end-to-end-latency"
	KindSharePerf    = "share-consumer-perf-test"
)

// Status values of Document.Status.
const (
	StatusOK     = "ok"     // the run did all it was asked to
	StatusFailed = "failed" // the run stopped early or records failed; see Error
)

// Document is one run's result.
type Document struct {
	Schema        string    `json:"schema"`
	Kind          string    `json:"kind"`
	KbenchVersion string    `json:"kbench_version"`
	StartedAt     time.Time `json:"started_at"`
	EndedAt       time.Time `json:"ended_at"`
	Status        string    `json:"status"`
	Error         string    `json:"error,omitempty"`
	Topic         *Topic    `json:"topic,omitempty"`
	// BrokerVersions are the Kafka releases the brokers answered as.
	BrokerVersions []string          `json:"broker_versions,omitempty"`
	Config         map[string]string `json:"config"`
	Producer       *Producer         `json:"producer,omitempty"`
	Consumer       *Consumer         `json:"consumer,omitempty"`
	EndToEnd       *Latency          `json:"end_to_end_latency,omitempty"`
	Plan           *PlanRun          `json:"plan,omitempty"` // kbench run
}

// New starts the document of a run of the given kind that began at started.
// Finish completes it.
func New(kind, kbenchVersion string, started time.Time, config map[string]string) *Document {
	return &Document{Schema: Schema, Kind: kind, KbenchVersion: kbenchVersion, StartedAt: started, Config: config}
}

// Finish stamps the end time and the status: ok; interrupted when runErr
// is a cancellation (Ctrl-C, SIGTERM) and nothing else; else failed with
// what is not a cancellation. A run ended by its own bound (a producer's
// stall) cancels its clients too, and was "interrupted" though no signal
// came. A document keeps everything measured before the failure.
func (d *Document) Finish(runErr error) {
	d.EndedAt = time.Now()
	d.Status = StatusOK
	if runErr == nil {
		return
	}
	if failed := notCancelled(runErr); len(failed) > 0 {
		d.Status, d.Error = StatusFailed, errors.Join(failed...).Error()
		return
	}
	d.Status, d.Error = StatusInterrupted, "interrupted"
}

// notCancelled are the errors joined in err that are not cancellations.
func notCancelled(err error) []error {
	if many, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range many.Unwrap() {
			out = append(out, notCancelled(e)...)
		}
		return out
	}
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return []error{err}
}

// Topic describes the topic a run used, as the cluster reported it.
type Topic struct {
	Name              string `json:"name"`
	Partitions        int    `json:"partitions"`
	ReplicationFactor int    `json:"replication_factor,omitempty"`
}

// Producer holds what producers measured. Bytes count record values only, as
// the Apache tool does; MiBPerSec divides by 1024×1024 (the Apache tools'
// "MB").
type Producer struct {
	Clients int `json:"clients"`
	// VUs is a virtual-users workload's number of users (the closed
	// model; a ramp's peak, its plateaus' counts in Plateaus); absent for
	// a rate, and in results written before it was kept.
	VUs     int   `json:"vus,omitempty"`
	Records int64 `json:"records"` // acknowledged by the broker
	Bytes   int64 `json:"bytes"`
	Failed  int64 `json:"failed"`
	// Unresolved of the failed records were cancelled, not refused (Ctrl-C,
	// or the drain bound passed): their outcome is unknown. The longest
	// wait any had reached is not in the latency.
	Unresolved          int64   `json:"unresolved,omitempty"`
	UnresolvedMaxWaitMs float64 `json:"unresolved_max_wait_ms,omitempty"`
	// NotSent counts the records a run of a number of records never sent:
	// it ended first (its stall bound, Ctrl-C). Records + Failed + NotSent
	// are the records asked for.
	NotSent int64 `json:"not_sent,omitempty"`
	// KbenchPauses are the stretches in which kbench itself did not run
	// (the process stopped, its host suspended or overloaded): records due
	// then went out late, their latency counting the pause, or not at all
	// (NotSent). DurationSeconds and the rates leave them out.
	KbenchPauses    []Pause `json:"kbench_pauses,omitempty"`
	DurationSeconds float64 `json:"duration_seconds"`
	RecordsPerSec   float64 `json:"records_per_sec"`
	MiBPerSec       float64 `json:"mib_per_sec"`
	TargetRate      float64 `json:"target_rate,omitempty"` // records/s; 0 when unlimited
	// BalancedRates are the rates OMB's balanced-rate search (rate:
	// balanced) set, every 3 s, over all its producers: where it started
	// (10,000 records/s) and where it went.
	BalancedRates []RatePoint `json:"balanced_rates,omitempty"`
	LatencyFrom   string      `json:"latency_from"` // "send" or "intended" (fixed rate)
	Latency       Latency     `json:"latency"`      // publish latency: send → ack
	// PublishDelay is, on a schedule (a fixed rate, stages, a balanced
	// rate), how long after its intended send time each acknowledged
	// record was handed to the client (µs): OMB's publishDelayLatency.
	// Latency already counts it (from the intended time); absent at an
	// unlimited rate.
	PublishDelay *Latency `json:"publish_delay,omitempty"`
	// SendLatency is, on a schedule, the latency from each record's actual
	// send to its acknowledgement: what the Apache tool's lines mean by
	// latency (Latency counts from the intended send time there); absent
	// at an unlimited rate, where Latency is that already.
	SendLatency *Latency         `json:"send_latency,omitempty"`
	SteadyState *Producer        `json:"steady_state,omitempty"`
	Errors      map[string]int64 `json:"errors,omitempty"`
	Intervals   []Interval       `json:"intervals,omitempty"`
	CPUSeconds  float64          `json:"cpu_seconds,omitempty"` // this process, user+system
	// Format is the values' schema format (avro, json_schema, protobuf)
	// or plain; BytesPerRecord their mean size as sent (registry framing
	// included); CPUMicrosPerRecord this process's CPU time per record
	// acknowledged in the repeat (all its workloads': serialisation,
	// batching, and readers' decoding when they run beside it).
	Format             string  `json:"format,omitempty"`
	BytesPerRecord     float64 `json:"bytes_per_record,omitempty"`
	CPUMicrosPerRecord float64 `json:"cpu_us_per_record,omitempty"`
	// FirstSendAt is when the first record was handed to the client and
	// FirstAckAt when the first was acknowledged (start-up time, measured
	// from outside by bench/soak.sh).
	FirstSendAt *time.Time `json:"first_send_at,omitempty"`
	FirstAckAt  *time.Time `json:"first_ack_at,omitempty"`
	// StartedAt, in steady_state only, is when its window began: the send
	// (intended send at a fixed rate) of the warm-up's last record. Its
	// figures count the records completing after the warm-up's last one
	// (or after the warm-up time), its rates over the window from here to
	// the end, so at a fixed rate they never exceed the rate offered.
	StartedAt *time.Time `json:"started_at,omitempty"`
	// WarmupAckLagMs, in steady_state only, is how long after StartedAt
	// the warm-up ended on the acknowledgement timeline (its last record
	// acknowledged, or the warm-up time passed): the acknowledgements
	// lagged the sends by that much.
	WarmupAckLagMs float64 `json:"warmup_ack_lag_ms,omitempty"`
	// Transactions is what a transactional producer's commits did.
	Transactions *Transactions `json:"transactions,omitempty"`
	// Plateaus are a ramp of virtual users' stretches of a constant
	// count, each with its own figures.
	Plateaus []Plateau `json:"plateaus,omitempty"`
}

// Pause is a stretch in which kbench did not run, from AtSeconds after the
// workload's start.
type Pause struct {
	AtSeconds float64 `json:"at_seconds"`
	Seconds   float64 `json:"seconds"`
}

// Plateau is what a ramp of virtual users measured while it held VUs
// users, from FromSeconds to ToSeconds after the workload's start: the
// records sent within it and acknowledged, their rate over its length and
// their publish latency. LittleUsers is Little's law's check: records/s ×
// mean latency, the users busy on average; a little under VUs, since a
// user's time between an acknowledgement and its next send is not
// latency (LittleRatio = LittleUsers ÷ VUs).
type Plateau struct {
	VUs           int     `json:"vus"`
	FromSeconds   float64 `json:"from_seconds"`
	ToSeconds     float64 `json:"to_seconds"`
	Records       int64   `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	P50Ms         float64 `json:"p50_ms"`
	P99Ms         float64 `json:"p99_ms"`
	MeanMs        float64 `json:"mean_ms"`
	LittleUsers   float64 `json:"little_users"`
	LittleRatio   float64 `json:"little_ratio"`
	Latency       Latency `json:"latency"`
}

// RatePoint is a rate (records/s) set ElapsedSeconds after the start.
type RatePoint struct {
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Rate           float64 `json:"rate"`
}

// Transactions counts a transactional producer's transactions; the
// commit latency (flush and commit, µs) is over those committed.
type Transactions struct {
	Committed int64 `json:"committed"`
	// Aborted are the transactions aborted on purpose (the plan's
	// transaction.abort_ratio); Failed, those whose commit or abort failed.
	Aborted          int64   `json:"aborted,omitempty"`
	Failed           int64   `json:"failed"`
	CommittedRecords int64   `json:"committed_records,omitempty"`
	AbortedRecords   int64   `json:"aborted_records,omitempty"`
	CommitLatency    Latency `json:"commit_latency"`
}

// Consumer holds what consumers measured. RecordsPerSec and MiBPerSec are
// over ReadingSeconds; DurationSeconds is the consumers' whole run.
type Consumer struct {
	Clients         int     `json:"clients"`
	Records         int64   `json:"records"`
	Bytes           int64   `json:"bytes"`
	DurationSeconds float64 `json:"duration_seconds"`
	RecordsPerSec   float64 `json:"records_per_sec"`
	MiBPerSec       float64 `json:"mib_per_sec"`
	RebalanceMs     int64   `json:"rebalance_ms"` // time to join the group and get an assignment
	FetchMs         int64   `json:"fetch_ms"`
	Rebalances      int     `json:"rebalances,omitempty"`
	// GroupChanges are the group members' joins, assignments, revocations
	// and leaves, in time order (GroupSettling reads them).
	GroupChanges []GroupChange    `json:"group_changes,omitempty"`
	Errors       map[string]int64 `json:"errors,omitempty"`
	Intervals    []Interval       `json:"intervals,omitempty"`
	Lag          []LagPoint       `json:"lag,omitempty"`
	CPUSeconds   float64          `json:"cpu_seconds,omitempty"`
	// Decoded and DecodeFailures count the records whose schema-framed
	// values decoded with their registered schema, and those that did not
	// (a consumer of a plan whose messages have a schema format);
	// DecodeError is the first failure.
	Decoded        int64  `json:"decoded,omitempty"`
	DecodeFailures int64  `json:"decode_failures,omitempty"`
	DecodeError    string `json:"decode_error,omitempty"`

	// ReadingSeconds is from the first record read to the last, which
	// RecordsPerSec and MiBPerSec divide by: a consumer keeping pace with a
	// producer waits for records before the first and after the last.
	// LifetimeRecordsPerSec divides by DurationSeconds instead.
	ReadingSeconds        float64 `json:"reading_seconds"`
	LifetimeRecordsPerSec float64 `json:"lifetime_records_per_sec"`

	// Share is a share group's deliveries (share-consume workloads and
	// share-consumer-perf-test): Records counts settled records then.
	Share *Share `json:"share,omitempty"`
}

// GroupChange is one change of a consumer group member: it joined (its
// client started), was assigned partitions, had them revoked or lost, or
// left (its workload stopped; its client sends its leave right after).
type GroupChange struct {
	At         time.Time `json:"at"`
	Client     int       `json:"client"`
	Event      string    `json:"event"`
	Partitions int       `json:"partitions,omitempty"`
}

// Share is what the members of a share group did with the records
// delivered to them.
type Share struct {
	Deliveries int64 `json:"deliveries"` // redeliveries included
	Accepted   int64 `json:"accepted"`
	Released   int64 `json:"released"`
	Rejected   int64 `json:"rejected"`
	Renewed    int64 `json:"renewed,omitempty"`
	// Archived were released on their last delivery
	// (share.delivery.count.limit): settled, never processed.
	Archived    int64 `json:"archived"`
	Redelivered int64 `json:"redelivered"`
	// LockTimeouts are redeliveries no release asked for: the record's
	// acquisition lock ran out first.
	LockTimeouts int64 `json:"lock_timeouts"`
	// DeliveryCounts[i] counts deliveries that were a record's i-th (the
	// last entry: that many or more).
	DeliveryCounts []int64          `json:"delivery_counts"`
	AckErrors      map[string]int64 `json:"ack_errors,omitempty"`
	// AckLatency is how long acknowledgements waited for the broker's
	// answer (µs), per answer from the oldest acknowledgement it answered.
	AckLatency *Latency `json:"ack_latency,omitempty"`
	// PerMember is each member's settled records (accepted, rejected or
	// archived by its acknowledgement; they sum to the records the run
	// counted); older results held each member's accepted records.
	PerMember []int64 `json:"per_member"`
	// Resettled are settlements of records already settled: redeliveries
	// after an acknowledgement the broker never took (a broker died with
	// it, a lock ran out), counted once in records.
	Resettled    int64              `json:"resettled,omitempty"`
	Verification *ShareVerification `json:"verification,omitempty"`
}

// ShareVerification checks every record from where the group started to
// the topic's end: each must be accepted once, or rejected, or archived.
type ShareVerification struct {
	Records       int64 `json:"records"`
	Accepted      int64 `json:"accepted"`
	AcceptedTwice int64 `json:"accepted_twice"`
	Rejected      int64 `json:"rejected"`
	Archived      int64 `json:"archived"`
	// SettledByBroker were settled by no member but lie below the
	// group's share start offset after the run: the broker archived them
	// after deliveries no member processed, or they hold no record.
	SettledByBroker int64    `json:"settled_by_broker,omitempty"`
	Unsettled       int64    `json:"unsettled"`
	Missing         []string `json:"missing,omitempty"` // the first unsettled records, topic[partition]@offset
	// BrokerLag is the broker's count of records it still holds
	// unsettled after the run (Kafka 4.2+); absent when not known.
	BrokerLag *int64 `json:"broker_lag,omitempty"`
	// Partial: the run was interrupted; the records up to the last one
	// read of each partition were checked.
	Partial bool `json:"partial,omitempty"`
}

// LagPoint is the consumer group's total lag at a moment of the run.
type LagPoint struct {
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Records        int64   `json:"records"`
}

// Interval is one reporting interval of a run's series. Intervals are
// fixed-width on the run's clock (every workload of a plan scenario shares
// it), absolute, and kept when empty: a stall shows as zeros. Each counts
// every record that completed in it, warm-up included (Steady says whether
// steady state had begun); only the first and the last may differ in
// width: one shorter than half an interval is folded into its neighbour
// (measure.Folds), which then spans up to 1.5 intervals.
type Interval struct {
	Start          time.Time `json:"start"`           // wall clock, RFC 3339
	Seconds        float64   `json:"seconds"`         // its width
	ElapsedSeconds float64   `json:"elapsed_seconds"` // its end, since the workload started
	Records        int64     `json:"records"`
	Bytes          int64     `json:"bytes"`
	// Failed counts a producer's records that failed in the interval.
	Failed int64 `json:"failed,omitempty"`
	// The send delay of the interval's records (a producer on a
	// schedule: each record's lateness against its intended send time,
	// OMB's publish delay), µs, exact; every record acknowledged in the
	// interval has one.
	PublishDelayAvgUs float64 `json:"publish_delay_avg_us,omitempty"`
	PublishDelayMaxUs int64   `json:"publish_delay_max_us,omitempty"`
	// The interval's histograms (µs, encoded as Latency.Histogram, read
	// with measure.Decode): a producer's publish latencies and send
	// delays, a consumer's end-to-end latencies. Percentiles over any span
	// of intervals (OMB's 10 s periods) merge from them exactly, at the
	// precision of OMB's own quantiles (3 significant digits). Kept for
	// OMB runs only: every run has LatencyHistogram.
	PublishHistogram      string  `json:"publish_histogram,omitempty"`
	PublishDelayHistogram string  `json:"publish_delay_histogram,omitempty"`
	EndToEndHistogram     string  `json:"end_to_end_histogram,omitempty"`
	RecordsPerSec         float64 `json:"records_per_sec"`
	AvgLatencyMs          float64 `json:"avg_latency_ms,omitempty"`
	MaxLatencyMs          float64 `json:"max_latency_ms,omitempty"`
	// Percentiles of the interval's latencies (producers; 2 significant
	// digits).
	P50LatencyMs  float64 `json:"p50_latency_ms,omitempty"`
	P99LatencyMs  float64 `json:"p99_latency_ms,omitempty"`
	P999LatencyMs float64 `json:"p99_9_latency_ms,omitempty"`
	Steady        bool    `json:"steady,omitempty"`
	Final         bool    `json:"final,omitempty"` // the partial interval at the end
	// Since v2, every interval's latencies (a producer's publish latency,
	// a consumer's end-to-end latency): the exact count, sum, min and max
	// (µs) beside a compact histogram (measure.SeriesHistogram, 32
	// buckets per power of two), so that series of clients, repeats and
	// workers merge exactly (MergeSeries). The percentile columns above
	// are the reporter's own; those of a merged interval come from it.
	LatencyCount     int64  `json:"latency_count,omitempty"`
	LatencySumUs     int64  `json:"latency_sum_us,omitempty"`
	LatencyMinUs     int64  `json:"latency_min_us,omitempty"`
	LatencyMaxUs     int64  `json:"latency_max_us,omitempty"`
	LatencyHistogram string `json:"latency_histogram,omitempty"`
	// UpperBound marks a merged interval one of whose parts had latencies
	// but no histogram (a v1 document): its percentiles are the largest
	// of the parts', an upper bound, and its mean is weighted by records.
	UpperBound bool `json:"upper_bound,omitempty"`
}

// Latency summarises a latency histogram. Every value is in microseconds.
// Count, Sum, Min, Mean and Max are exact; the percentiles come from the
// HdrHistogram (3 significant digits). Histogram is that histogram
// (measure.Histogram.Encode), for merging; with Sum, Min, Max and the
// counts it rebuilds the whole (Latency.Decode).
type Latency struct {
	Unit  string  `json:"unit"`
	Count int64   `json:"count"`
	Sum   int64   `json:"sum"`
	Min   int64   `json:"min"`
	Mean  float64 `json:"mean"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P95   int64   `json:"p95"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p99_9"`
	P9999 int64   `json:"p99_99"`
	Max   int64   `json:"max"`
	// OverRange counts latencies above an hour: in the percentiles as one
	// hour, in Sum and Max as measured. Negative counts negative ones
	// (clocks disagreeing), left out of everything else.
	OverRange int64 `json:"over_range,omitempty"`
	Negative  int64 `json:"negative,omitempty"`
	// End-to-end latency only: Source says where each record's send time
	// came from, "header" (kbench's send-time header, µs), "timestamp"
	// (the record's timestamp, ms) or "mixed"; Backlog counts records sent
	// before the consumer started, left out: their latency is their age.
	Source    string `json:"source,omitempty"`
	Backlog   int64  `json:"backlog,omitempty"`
	Histogram string `json:"histogram"`
	// sum is the parts' histograms added, after Add: Histogram and the
	// percentiles are then empty until it is settled or written.
	sum *measure.HistogramSum
}

// Decode rebuilds the measured histogram, exact statistics included,
// so that latencies of repeats and clients merge exactly. A latency that
// measured nothing may have no histogram. A histogram that does not decode,
// or that holds another number of values than Count, is an error: the
// figures merged from it would be wrong.
func (l *Latency) Decode() (*measure.Histogram, error) {
	if err := l.settle(); err != nil {
		return nil, err
	}
	if l.Histogram == "" {
		if l.Count != 0 {
			return nil, fmt.Errorf("histogram is empty but count is %d", l.Count)
		}
		return measure.NewHistogram(), nil
	}
	h, err := measure.Decode(l.Histogram)
	if err != nil {
		return nil, err
	}
	if n := h.Count(); n != l.Count {
		return nil, fmt.Errorf("histogram holds %d values but count is %d", n, l.Count)
	}
	h.SetExact(l.Count, l.Sum, l.Min, l.Max, l.OverRange, l.Negative)
	return h, nil
}

// LatencyOf summarises h. An empty histogram gives zero percentiles.
func LatencyOf(h *measure.Histogram) (Latency, error) {
	enc, err := h.Encode()
	if err != nil {
		return Latency{}, err
	}
	return Latency{
		Unit:      "us",
		Count:     h.Count(),
		Sum:       h.Sum(),
		Min:       h.Min(),
		Mean:      h.Mean(),
		P50:       h.Quantile(0.50),
		P90:       h.Quantile(0.90),
		P95:       h.Quantile(0.95),
		P99:       h.Quantile(0.99),
		P999:      h.Quantile(0.999),
		P9999:     h.Quantile(0.9999),
		Max:       h.Max(),
		OverRange: h.OverRange(),
		Negative:  h.Negative(),
		Histogram: enc,
	}, nil
}

// Write stores doc as indented JSON at path through outfile.Write: a
// regular file is replaced atomically and synced, so a reader never sees
// half a document and a crash never leaves one; a symlink's target is
// written, and a device (/dev/null) is written in place.
func Write(path string, doc *Document) error {
	if doc.Schema == "" {
		doc.Schema = Schema
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	b = append(b, '\n')
	// In test binaries every document written is checked, so that the
	// integration suite holds issue 33's rule (no percentile outside its
	// exact bounds) in every result.json it writes, without each test
	// calling CheckPercentiles.
	if testing.Testing() {
		if err := CheckPercentiles(doc); err != nil {
			return fmt.Errorf("write result %s: %w", path, err)
		}
	}
	if err := outfile.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("write result %s: %w", path, err)
	}
	return nil
}

// MaxFile bounds a result document kbench reads (report, compare, size
// --from): a day's soak writes a few hundred MB. A regular file over it is
// refused by its size; others (a FIFO, a device) as they are read. The
// document is decoded as it is read (decode), so other data fails at its
// first bytes, and a document that never ends at a bound: MaxFile,
// MaxValue or MaxKept.
const MaxFile = 1 << 30 // bytes

// Read loads a result document and checks it (Parse). Its errors are the
// user's (userr): they name the file, and the field and byte where it went
// wrong or what cannot be true.
func Read(path string) (*Document, error) {
	return read(path, readLimits)
}

func read(path string, lim limits) (*Document, error) {
	f, err := infile.Open(path, lim.file, "a result document")
	if err != nil {
		if errors.Is(err, infile.ErrTooLarge) {
			return nil, userr.Errorf("read result: %w", err)
		}
		return nil, userr.Errorf("read result %s: %w", path, err)
	}
	defer f.Close()
	doc, err := decode(f, path, lim)
	if err != nil {
		return nil, userr.New(err)
	}
	return checked(path, doc)
}

// Parse decodes a result document read from name and checks it as Read
// does.
func Parse(name string, b []byte) (*Document, error) {
	doc, err := decode(bytes.NewReader(b), name, limits{file: int64(len(b)), value: MaxValue, kept: MaxKept})
	if err != nil {
		return nil, userr.New(err)
	}
	return checked(name, doc)
}

// checked is doc if its schema is this kbench's and its content holds:
// every histogram decodes (check) and no figure is one kbench cannot have
// written (validate).
func checked(name string, doc *Document) (*Document, error) {
	if !strings.HasPrefix(doc.Schema, SchemaName+"/") {
		return nil, userr.Errorf("read result %s: schema %q is not %s/...", name, doc.Schema, SchemaName)
	}
	if doc.Schema != Schema && doc.Schema != SchemaV1 {
		return nil, userr.Errorf("read result %s: schema %q is newer than this kbench understands (%s); upgrade kbench", name, doc.Schema, Schema)
	}
	if err := doc.check(); err != nil {
		return nil, userr.Errorf("read result %s: %w; the file is damaged: restore it from a copy, or run the plan again", name, err)
	}
	if err := doc.validate(); err != nil {
		return nil, userr.Errorf("read result %s: %w; kbench never writes this: the file was changed or damaged", name, err)
	}
	return doc, nil
}
