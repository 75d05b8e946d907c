package result

import (
	"fmt"
	"strings"
	"time"
)

// KindPlan is the kind of a document written by `kbench run`.
const KindPlan = "plan"

// StatusInterrupted marks a run that Ctrl-C (or SIGTERM) ended: what it
// measured until then is kept.
const StatusInterrupted = "interrupted"

// StatusSkipped marks a repeat a plan did not run, its cluster known not
// to answer; Error says why.
const StatusSkipped = "skipped"

// PlanRun is a study plan's run: every scenario of its matrix with every
// repeat, and the statistics over repeats.
type PlanRun struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Parameters  []string `json:"parameters,omitempty"` // swept, in the plan's order
	Repeat      int      `json:"repeat"`
	// Seed is the run's seed: the plan's, or drawn for the run. Every
	// workload without a message seed takes its random values from it, so
	// `--set seed=N` sends the same records again.
	Seed        uint64       `json:"seed"`
	Environment *Environment `json:"environment,omitempty"`
	// PlanYAML is the plan as run, as the results folder's plan.yaml holds
	// it (after --set, secrets redacted), so that a result.json on its own
	// still says what was run.
	PlanYAML  string     `json:"plan_yaml,omitempty"`
	Scenarios []Scenario `json:"scenarios"`
	// OMB, for a run of OpenMessaging Benchmark files, is what OMB's
	// result (omb-result.json) needs beside the repeats, so that kbench
	// report writes it again.
	OMB *OMBRun `json:"omb,omitempty"`
	// SchemaRegistry, for a plan whose messages have a schema format, is
	// what the registry was asked and how long it took.
	SchemaRegistry *SchemaRegistry `json:"schema_registry,omitempty"`
	// Distributed, for a plan that several workers ran (kbench run
	// --workers), names the run and its workers' clocks; each repeat is
	// then the exact merge of the workers' slices (Repeat.Workers).
	Distributed *Distributed `json:"distributed,omitempty"`
}

// Distributed is a plan run by several kbench workers, coordinated through
// the cluster under test.
type Distributed struct {
	RunID   string `json:"run_id"`
	Workers int    `json:"workers"`
	// Clocks are the workers' clocks against the control partition's
	// leader, each estimated as the worker joined: end-to-end latency
	// between workers is only as exact as their offsets agree.
	Clocks []WorkerClock `json:"clocks,omitempty"`
	// Lost are the workers that stopped heartbeating (or sent no result
	// slice) in some repeat: those repeats lack their share.
	Lost []int `json:"lost,omitempty"`
	// ControlBytes is the most any worker wrote to the control topic
	// (announcement, clock pings, heartbeats, barriers), in the
	// ControlSeconds from its joining to its last result slice.
	ControlBytes   int64   `json:"control_bytes,omitempty"`
	ControlSeconds float64 `json:"control_seconds,omitempty"`
}

// WorkerClock is one worker's clock estimate: reference minus its clock,
// within ± UncertaintyMs.
type WorkerClock struct {
	Worker        int     `json:"worker"`
	Host          string  `json:"host,omitempty"`
	OffsetMs      float64 `json:"offset_ms"`
	UncertaintyMs float64 `json:"uncertainty_ms"`
	RoundTripMs   float64 `json:"round_trip_ms"`
	// StartLateMs is how long after the common start the worker released
	// its workloads, by its clock converted to the reference, in the
	// repeat where that was farthest from it (absent: it reached no
	// start). Its real distance from the start adds its offset's error.
	StartLateMs *float64 `json:"start_late_ms,omitempty"`
}

// SchemaRegistry is a run's use of its schema registry. Cold: before
// sending, the producers resolved each subject (register or look up), one
// request or a few each, with nothing cached. Warm: while records flowed,
// the clients asked only for what they had not cached (each consumer
// client's first record of a schema id, a schema evolution), so Warm
// requests stay a handful however many records were sent.
type SchemaRegistry struct {
	URL      string          `json:"url"` // without credentials
	Subjects []SchemaSubject `json:"subjects,omitempty"`
	// ColdRequests and ColdMillis are the requests made resolving the
	// subjects before sending, and how long that took in all.
	ColdRequests int64   `json:"cold_requests"`
	ColdMillis   float64 `json:"cold_ms"`
	// WarmRequests were made after, with their mean and largest latency.
	WarmRequests   int64   `json:"warm_requests"`
	WarmMeanMillis float64 `json:"warm_mean_ms,omitempty"`
	WarmMaxMillis  float64 `json:"warm_max_ms,omitempty"`
	// Failures are requests without an answer or with a 5xx status.
	Failures int64 `json:"failures"`
	// Evolutions are the new versions registered mid-run
	// (schema_evolution), one per repeat.
	Evolutions []SchemaEvolution `json:"evolutions,omitempty"`
}

// SchemaEvolution is a new version of a subject's schema registered while
// records flowed: when, its id, how long the registry took, and the error
// if it refused it (the producers then kept the old version).
type SchemaEvolution struct {
	Scenario  int     `json:"scenario"`
	Repeat    int     `json:"repeat"`
	Workload  string  `json:"workload"`
	Subject   string  `json:"subject"`
	AtSeconds float64 `json:"at_seconds"` // from the repeat's start
	FromID    int     `json:"from_id"`
	ID        int     `json:"id,omitempty"`
	Millis    float64 `json:"ms"`
	Error     string  `json:"error,omitempty"`
}

// SchemaSubject is one subject a run's producers wrote under.
type SchemaSubject struct {
	Subject string `json:"subject"`
	Format  string `json:"format"`
	ID      int    `json:"id"`
}

// OMBRun is an OMB run's header fields as OMB writes them, its warm-up,
// and which workloads were OMB's producers and consumers.
type OMBRun struct {
	Workload              string   `json:"workload"`
	Driver                string   `json:"driver"`
	MessageSize           int64    `json:"message_size"`
	Topics                int      `json:"topics"`
	Partitions            int      `json:"partitions"`
	ProducersPerTopic     int      `json:"producers_per_topic"`
	ConsumersPerTopic     int      `json:"consumers_per_topic"`
	SubscriptionsPerTopic int      `json:"subscriptions_per_topic"`
	WarmupSeconds         float64  `json:"warmup_seconds"`
	Producers             []string `json:"producers"`
	Consumers             []string `json:"consumers,omitempty"`
}

// Environment is what the numbers were measured on.
type Environment struct {
	Cluster        string   `json:"cluster"`                   // "local" (started by kbench) or "external"
	KafkaVersion   string   `json:"kafka_version,omitempty"`   // the local cluster's release
	BrokerVersions []string `json:"broker_versions,omitempty"` // as the brokers' ApiVersions answer, distinct
	Brokers        int      `json:"brokers,omitempty"`         // how many answered
	// NetworkProxies: every connection ran through kbench's network
	// proxies (a plan with network faults), which cost some throughput
	// and latency of their own (docs/benchmarks.md).
	NetworkProxies bool   `json:"network_proxies,omitempty"`
	CPUs           int    `json:"cpus"`
	GoMaxProcs     int    `json:"gomaxprocs"`
	OS             string `json:"os,omitempty"`   // the client machine's, as Go names it
	Arch           string `json:"arch,omitempty"` // amd64, arm64, ...
}

// Param is one swept parameter's value.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Scenario is one point of the plan's matrix.
type Scenario struct {
	Index     int        `json:"index"`
	Name      string     `json:"name"`
	Params    []Param    `json:"params,omitempty"`
	Repeats   []Repeat   `json:"repeats"`
	Aggregate *Aggregate `json:"aggregate,omitempty"`
	// Interrupted holds what the interrupted repeats measured until they
	// stopped, when no repeat ended ok (Aggregate is then absent): the
	// statistics of a scenario Ctrl-C cut short, never mixed with ok ones.
	Interrupted *Aggregate `json:"interrupted,omitempty"`
	// Thresholds are the plan's thresholds checked against the aggregate.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	// BrokerConfigs are the dynamic broker settings the scenario ran with
	// (cluster.broker_configs), as every broker reported them once set.
	BrokerConfigs map[string]string `json:"broker_configs,omitempty"`
	// Ceilings are the consume workloads' theoretical maximum records/s,
	// for those with a processing time per record (docs/share-groups.md,
	// "The theoretical maximum").
	Ceilings []Ceiling `json:"ceilings,omitempty"`
}

// Ceiling is a consume workload's theoretical maximum: the records/s its
// members could settle at most with the plan's processing time, from the
// model written out in Formula with the scenario's numbers.
type Ceiling struct {
	Workload      string  `json:"workload"`
	RecordsPerSec float64 `json:"records_per_sec"`
	Formula       string  `json:"formula"`
}

// ThresholdResult is one threshold of a workload checked against what a
// scenario measured (its mean over repeats that ended ok).
type ThresholdResult struct {
	Scenario  string  `json:"scenario"`
	Workload  string  `json:"workload"`
	Metric    string  `json:"metric"`
	Condition string  `json:"condition"` // as written, e.g. "<= 50"
	Value     float64 `json:"value"`     // measured; NaN is never written: see Missing
	Missing   bool    `json:"missing,omitempty"`
	Passed    bool    `json:"passed"`
}

// Repeat is one run of a scenario.
type Repeat struct {
	Index     int       `json:"index"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	// SetupSeconds is the time spent preparing topics (deleting and
	// creating them, waiting for leaders) before the workloads started.
	SetupSeconds float64    `json:"setup_seconds"`
	Status       string     `json:"status"`
	Error        string     `json:"error,omitempty"`
	Workloads    []Workload `json:"workloads"`
	// Faults are the plan's faults as this repeat ran them, and what was
	// measured; Verification is what reading each verified workload's
	// records back found.
	Faults       []Fault        `json:"faults,omitempty"`
	Verification []Verification `json:"verification,omitempty"`
	// Workers, in a repeat merged from distributed workers' slices
	// (MergeRepeats), is how many there were; 0 for a repeat one process
	// ran. Inexact names the repeat's fields that are not exact merges of
	// the slices' and says how each was taken (the workloads' own are in
	// Workload.Inexact).
	Workers int      `json:"workers,omitempty"`
	Inexact []string `json:"inexact,omitempty"`
	// Process is what the kbench process used while the workloads ran;
	// merged from workers, CPU and goroutines summed over the processes,
	// resident memory the largest one's.
	Process *Process `json:"process,omitempty"`
	// Brokers is what each broker process of a local cluster used during
	// the repeat, read from /proc, and each broker's own Kafka metrics
	// from its Prometheus endpoint (a local broker's agent, or a remote
	// cluster's cluster.metrics endpoints: entries with Endpoint and no
	// processes).
	Brokers []BrokerCost `json:"brokers,omitempty"`
	// Disks are the block devices under a local cluster's data
	// directories over the repeat, and DisksUnjudged the directories on
	// none (tmpfs, an overlay), which the disk figures leave out.
	Disks         []Disk   `json:"disks,omitempty"`
	DisksUnjudged []string `json:"disks_unjudged,omitempty"`
	// Network is the network between kbench and the brokers over the
	// repeat: a local cluster's fault proxies, or the client host's
	// interface toward a remote cluster.
	Network *Network `json:"network,omitempty"`
	// Watched are the system's consumer groups the plan watches (watch:
	// {groups}), their lag sampled through the repeat.
	Watched []WatchedGroup `json:"watched,omitempty"`
}

// WatchedGroup is one consumer group of the system watched during a
// repeat: its lag (records behind, from its committed offsets) every
// second from the repeat's start (LagPoint's seconds count from there), and after each fault how long until the
// lag was back to its level before it.
type WatchedGroup struct {
	Group   string     `json:"group"`
	Samples []LagPoint `json:"samples,omitempty"`
	MaxLag  int64      `json:"max_lag"`
	// Error is why the group could not be read (it does not exist, is not
	// authorised); the samples hold what was read until then.
	Error      string          `json:"error,omitempty"`
	Recoveries []GroupRecovery `json:"recoveries,omitempty"`
}

// GroupRecovery is how a watched group came through a fault: its lag
// before, its peak after, and the milliseconds from the fault until the
// lag was back at or under its level before (nil: not within the repeat).
type GroupRecovery struct {
	Fault       string   `json:"fault"`
	LagBefore   int64    `json:"lag_before"`
	PeakLag     int64    `json:"peak_lag"`
	RecoveredMs *float64 `json:"recovered_ms,omitempty"`
}

// BrokerCost is what one local broker's processes used during a repeat,
// from /proc: CPU, resident memory and storage I/O (Processes > 0), and
// what its Prometheus endpoint said (Kafka). A broker the plan restarted
// counts each process's share. A remote cluster's endpoint is an entry of
// its own: Endpoint set, ID 0, no processes.
type BrokerCost struct {
	ID int `json:"id"`
	// Endpoint is a remote cluster's metrics URL (its password never
	// written), "" for a local broker.
	Endpoint      string  `json:"endpoint,omitempty"`
	CPUSeconds    float64 `json:"cpu_seconds"`
	UserSeconds   float64 `json:"user_seconds"`
	SystemSeconds float64 `json:"system_seconds"`
	RSSPeakBytes  int64   `json:"rss_peak_bytes"`
	RSSMeanBytes  int64   `json:"rss_mean_bytes"`
	// Disk bytes read and written to storage (/proc/PID/io), page-cache
	// writeback included; absent when /proc does not give them.
	DiskReadBytes  *int64 `json:"disk_read_bytes,omitempty"`
	DiskWriteBytes *int64 `json:"disk_write_bytes,omitempty"`
	// Processes counts the broker's processes seen (more than 1: it was
	// restarted during the repeat).
	Processes int `json:"processes"`
	// Samples were written by kbench before CPUCores (three numbers a
	// second, on a clock the result did not anchor): read, no longer
	// written.
	Samples []BrokerPoint `json:"samples,omitempty"`
	// CPUCores is the broker's CPU through the repeat, in cores used
	// (CPU seconds per second), a step a second: the report's chart.
	CPUCores *Steps `json:"cpu_cores,omitempty"`
	// Kafka is the broker's own metrics over the repeat (nil: no
	// endpoint, as in results before kbench read them).
	Kafka *KafkaMetrics `json:"kafka,omitempty"`
}

// Disk is one block device holding brokers' data over a repeat.
type Disk struct {
	Device  string `json:"device"`
	Brokers []int  `json:"brokers"` // whose data directories it holds
	// BusyPct is the share of the repeat the device had I/O in flight
	// (diskstats' io_ticks), PeakBusyPct its busiest second's. A device
	// that serves requests in parallel (an SSD, NVMe) can be busy 100%
	// and still take more: the figure says where to look, not a proof.
	BusyPct     float64 `json:"busy_pct"`
	PeakBusyPct float64 `json:"peak_busy_pct"`
	ReadBytes   int64   `json:"read_bytes"`
	WriteBytes  int64   `json:"write_bytes"`
}

// Network is what the network between kbench and the brokers carried and
// cost over a repeat.
type Network struct {
	// ProxyCPUSeconds is what a network-faults cluster's proxy process
	// used: every record crosses it, on the same machine's cores.
	ProxyCPUSeconds *float64 `json:"proxy_cpu_seconds,omitempty"`
	// Interface is the client host's interface toward the cluster, its
	// bytes sent and received during the repeat, and its link speed in
	// Mb/s when the kernel gives one (0: a virtual interface gives none).
	Interface     string  `json:"interface,omitempty"`
	SentBytes     int64   `json:"sent_bytes,omitempty"`
	ReceivedBytes int64   `json:"received_bytes,omitempty"`
	LinkMbps      float64 `json:"link_mbps,omitempty"`
	// BusyPct is the busier direction's mean rate over the link speed.
	BusyPct *float64 `json:"busy_pct,omitempty"`
}

// BrokerPoint is one sample of a broker: the CPU seconds it used since the
// last, and its resident memory, Seconds after the repeat began.
type BrokerPoint struct {
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	RSSBytes   int64   `json:"rss_bytes"`
}

// Process is what the kbench process used during a repeat: all of its
// workloads and clients together (divide by the clients for a client's
// share).
type Process struct {
	// CPUSeconds is its CPU time (user and system) while the workloads
	// ran.
	CPUSeconds float64 `json:"cpu_seconds"`
	// PeakGoroutines is the most goroutines it had meanwhile (counted
	// every 100 ms).
	PeakGoroutines int `json:"peak_goroutines"`
	// PeakRSSBytes is the most resident memory the process has held since
	// it started, up to the repeat's end (VmHWM on Linux): the binary's
	// touched pages included, and earlier repeats' peaks too.
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
}

// Fault is one fault of a repeat. AtSeconds is from the workloads' start
// (after the topics were prepared, just before the first send: the plan's
// at: counts from there; the report's tables and charts count from the
// first send, using Time);
// the measured times are nil when not measured (the action neither takes
// a broker away nor brings one back, or it led no partition).
type Fault struct {
	Name   string `json:"name,omitempty"`
	Action string `json:"action"`
	Target string `json:"target"`
	// Broker is the node the target resolved to (-1: not resolved).
	Broker int32 `json:"broker"`
	// AtSeconds is when the action began (0 for a fault that did not
	// happen: not reached or skipped).
	AtSeconds float64 `json:"at_seconds"`
	// Time is when the action began (absent when it did not happen).
	Time time.Time `json:"time,omitzero"`
	// FiredAtSeconds is when the fault fired, before the metadata look-ups
	// that resolve its target and the leaders it takes away; AtSeconds and
	// Time are the action's own moment, after them.
	FiredAtSeconds float64 `json:"fired_at_seconds,omitempty"`
	// ActionMs is how long the action took (a restart waits until the
	// broker has joined again).
	ActionMs float64 `json:"action_ms"`
	// ElectionMs is from the action until every partition the broker led
	// had a leader on another broker (metadata polled every 50 ms).
	ElectionMs *float64 `json:"election_ms,omitempty"`
	// ElectionNote says what happened instead of an election, or besides
	// it, in words: "not within 120 s", "t-1 has no other replica and came
	// back with broker 2 after 25.3 s".
	ElectionNote string `json:"election_note,omitempty"`
	// UnavailableMs is the longest time an affected partition went without
	// an acknowledgement, from the last before the fault to the first
	// after it (producers of the fault's topics); absent for a fault that
	// only slows (a delay, a bandwidth limit: faults.Effect's Slows).
	UnavailableMs *float64 `json:"unavailable_ms,omitempty"`
	// ISRShrunkMs is, for an action that takes its broker away or disrupts
	// it, from the action until a partition it replicates dropped it from
	// its in-sync replicas (absent when that did not happen while sending).
	ISRShrunkMs *float64 `json:"isr_shrunk_ms,omitempty"`
	// ISRRecoveredMs is, for an action that brings a broker back, from the
	// action until every partition's in-sync replica set was full.
	ISRRecoveredMs *float64 `json:"isr_recovered_ms,omitempty"`
	// ISRNote says why ISRRecoveredMs is missing ("not within 120 s").
	ISRNote string `json:"isr_note,omitempty"`
	// Outcome says in words what a network partition of a leader did:
	// what it was cut from, whether it was fenced and its partitions
	// moved, how long writes got no acknowledgement ("leader cut from the
	// other brokers, still in the quorum: not fenced, no election; ...").
	Outcome string `json:"outcome,omitempty"`
	// BrokerReplicas is how many partition replicas the fault's broker
	// held when it began, every topic counted; PlanReplicas how many were
	// the plan's (absent when not known): the rest were other runs' or
	// the cluster's, and recovered in the same figures.
	BrokerReplicas int `json:"broker_replicas,omitempty"`
	PlanReplicas   int `json:"plan_replicas,omitempty"`
	// TimedOut names what was still not seen when measuring gave up.
	TimedOut   []string         `json:"timed_out,omitempty"`
	Partitions []FaultPartition `json:"partitions,omitempty"`
	Status     string           `json:"status"` // done, failed, skipped, not reached
	// Note says why a fault did not happen ("sending ended at 30.2 s,
	// before its time (35.0 s)").
	Note   string `json:"note,omitempty"`
	Error  string `json:"error,omitempty"`
	Output string `json:"output,omitempty"`
}

// FaultPartition is a partition the fault's broker led.
type FaultPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	From      int32  `json:"from_leader"`
	To        int32  `json:"to_leader"` // -1: no new leader seen
	// UnavailableMs is this partition's longest time without an
	// acknowledgement around the fault.
	UnavailableMs *float64 `json:"unavailable_ms,omitempty"`
}

// Verification is what reading a produce workload's records back found.
type Verification struct {
	Workload string `json:"workload"`
	Topic    string `json:"topic"`
	// Acks and Idempotent are the producer's settings, which decide what
	// counts as a failure: lost acknowledged records fail a run with
	// acks=all; duplicates and reordering only with idempotence on.
	Acks           string `json:"acks"`
	Idempotent     bool   `json:"idempotent"`
	Acked          int64  `json:"acked"`
	Read           int64  `json:"read"`
	Lost           int64  `json:"lost"`
	Duplicated     int64  `json:"duplicated"`
	OutOfOrder     int64  `json:"out_of_order"`
	Unacknowledged int64  `json:"unacknowledged"`
	// Foreign counts the records of another writer the read-back found in
	// the topic (another run's, or without kbench's header).
	Foreign int64 `json:"foreign,omitempty"`
	// ReadCommitted: the producer wrote in transactions, and the topic
	// was read back as a read_committed consumer reads it. Aborted are
	// the acknowledged records of transactions aborted on purpose (owed
	// to no such reader, not in Acked); AbortedRead of them were read all
	// the same, which fails the run.
	// LatestPerKey is set when the workload was judged by latest value
	// per key (a compacted topic): Lost is then its newest values lost.
	LatestPerKey  *LatestPerKey `json:"latest_per_key,omitempty"`
	ReadCommitted bool          `json:"read_committed,omitempty"`
	Aborted       int64         `json:"aborted,omitempty"`
	AbortedRead   int64         `json:"aborted_read,omitempty"`
	Passed        bool          `json:"passed"`
	// Note says why a problem found did not fail the run, or why the
	// check could not be made.
	Note       string                  `json:"note,omitempty"`
	Error      string                  `json:"error,omitempty"`
	Partitions []VerificationPartition `json:"partitions,omitempty"`
	// Unseen is Jepsen's "acknowledged but not yet seen": sampled each
	// second from StartedAt, the acknowledged records a live reader had
	// not read yet.
	StartedAt time.Time     `json:"started_at"`
	Unseen    []UnseenPoint `json:"unseen,omitempty"`
	// Workers, in a distributed run, are each worker's check of the
	// records its own producers acknowledged (each reads the topic back
	// and judges its own records; a lost worker's are checked by worker 0
	// from the ledger pieces it published, FromPieces); Unchecked are the
	// workers whose records were not checked (lost, with nothing shared).
	Workers   []VerifiedWorker `json:"workers,omitempty"`
	Unchecked []int            `json:"unchecked,omitempty"`
}

// VerifiedWorker is one distributed worker's part of a verification.
type VerifiedWorker struct {
	Worker         int    `json:"worker"`
	Acked          int64  `json:"acked"`
	Lost           int64  `json:"lost"`
	Duplicated     int64  `json:"duplicated"`
	OutOfOrder     int64  `json:"out_of_order"`
	Unacknowledged int64  `json:"unacknowledged"`
	Passed         bool   `json:"passed"`
	Error          string `json:"error,omitempty"`
	// FromPieces: the worker was lost, and worker 0 checked the records
	// it had shared before (Acked is theirs; what it sent after its last
	// piece reads as unacknowledged).
	FromPieces bool `json:"from_pieces,omitempty"`
}

// VerificationPartition is one partition's problems, with the offsets of
// the first few of each (lost: where they were acknowledged).
type VerificationPartition struct {
	Partition           int32   `json:"partition"`
	Acked               int64   `json:"acked"`
	Lost                int64   `json:"lost"`
	Duplicated          int64   `json:"duplicated"`
	OutOfOrder          int64   `json:"out_of_order"`
	Unacknowledged      int64   `json:"unacknowledged"`
	FirstLost           []int64 `json:"first_lost,omitempty"`
	FirstDuplicated     []int64 `json:"first_duplicated,omitempty"`
	FirstOutOfOrder     []int64 `json:"first_out_of_order,omitempty"`
	FirstUnacknowledged []int64 `json:"first_unacknowledged,omitempty"`
}

// UnseenPoint is one sample of Verification.Unseen.
type UnseenPoint struct {
	Seconds float64 `json:"t"`
	Unseen  int64   `json:"unseen"`
	Acked   int64   `json:"acked"`
}

// Workload is what one workload of a repeat measured.
type Workload struct {
	Name      string     `json:"name"`
	Type      string     `json:"type"` // produce, consume or end-to-end
	Topic     *Topic     `json:"topic,omitempty"`
	Producer  *Producer  `json:"producer,omitempty"`
	Consumer  *Consumer  `json:"consumer,omitempty"`
	EndToEnd  *Latency   `json:"end_to_end_latency,omitempty"`
	Generator *Generator `json:"generator,omitempty"`
	// CatchUp is set for a consume workload that started late.
	CatchUp *CatchUp `json:"catch_up,omitempty"`
	// MaxRate is the search for the highest rate that kept the SLO
	// (rate: max); Producer is then the confirming run at that rate.
	MaxRate *MaxRate `json:"max_rate,omitempty"`
	// Sections are what its kind measured in sections of the kind's own
	// shape (a kind's section merges itself: measure.Section).
	Sections Sections `json:"sections,omitempty"`
	// Config is the workload's effective client properties, secrets
	// redacted.
	Config map[string]string `json:"config,omitempty"`
	// Workers, in a merged repeat (MergeRepeats), are each worker's own
	// figures of this workload, so that a slow or generator-bound worker
	// can be named. Inexact names the fields whose merge is not exact,
	// and how each was taken ("consumer.reading_seconds: ...").
	Workers []WorkerSlice `json:"workers,omitempty"`
	Inexact []string      `json:"inexact,omitempty"`
}

// WorkerSlice is one distributed worker's share of a merged workload.
type WorkerSlice struct {
	Worker int `json:"worker"` // its index: the slice's position
	// Records and RecordsPerSec are its producers' records acknowledged
	// and their rate over its own sending time.
	Records       int64   `json:"records,omitempty"`
	RecordsPerSec float64 `json:"records_per_sec,omitempty"`
	// ReadRecords and ReadRecordsPerSec are its consumers' (over their
	// reading time).
	ReadRecords       int64   `json:"read_records,omitempty"`
	ReadRecordsPerSec float64 `json:"read_records_per_sec,omitempty"`
	// CPUSeconds is the worker process's CPU time in the repeat (every
	// workload of the worker).
	CPUSeconds       float64  `json:"cpu_seconds,omitempty"`
	GeneratorBound   bool     `json:"generator_bound,omitempty"`
	GeneratorReasons []string `json:"generator_reasons,omitempty"`
	// Publish and EndToEnd are the worker's own latency percentiles (ms),
	// so a slow load machine shows itself beside the merged figures.
	Publish  *SlicePercentiles `json:"publish,omitempty"`
	EndToEnd *SlicePercentiles `json:"end_to_end,omitempty"`
}

// SlicePercentiles are one worker's latency percentiles, in milliseconds.
type SlicePercentiles struct {
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

// slicePercentiles takes l's (µs) in ms; nil when l measured nothing.
func slicePercentiles(l *Latency) *SlicePercentiles {
	if l == nil || l.Count == 0 {
		return nil
	}
	return &SlicePercentiles{P50Ms: float64(l.P50) / 1000, P99Ms: float64(l.P99) / 1000, MaxMs: float64(l.Max) / 1000}
}

// Generator says whether a producing workload measured kbench rather than
// the cluster.
type Generator struct {
	// CPUSeconds is kbench's whole process CPU time during the repeat
	// (every workload), CPUShare that over wall time and all CPUs.
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUShare   float64 `json:"cpu_share"`
	// BehindScheduleMaxMs is the most a record was sent after its
	// intended time (fixed rates only).
	BehindScheduleMaxMs float64 `json:"behind_schedule_max_ms"`
	// BufferFullSeconds is the time the sender waited for room in the
	// client's buffer (buffer.memory), summed over clients: the cluster
	// pushing back.
	BufferFullSeconds float64  `json:"buffer_full_seconds"`
	Bound             bool     `json:"bound"`
	Reasons           []string `json:"reasons,omitempty"`
	// CommitSeconds is the time the senders spent committing
	// transactions, summed over clients: the cluster's time too.
	CommitSeconds float64 `json:"commit_seconds,omitempty"`
	// SenderBehindMs is how far behind its schedule a sender was, on
	// average over clients, when sending stopped, less the time it waited
	// on the cluster (BufferFullSeconds, CommitSeconds): the lag that was
	// kbench's own (fixed rates only).
	SenderBehindMs float64 `json:"sender_behind_ms,omitempty"`
	// RateLimitedBy, when a fixed-rate producer fell short of its rate,
	// says what held it back: "kbench" (the sender's own lag accounts for
	// the shortfall; Bound is set) or "cluster" (the sender kept to its
	// schedule, or waited on the cluster); RateNote says it in words.
	RateLimitedBy string `json:"rate_limited_by,omitempty"`
	RateNote      string `json:"rate_note,omitempty"`
}

// Aggregate is a scenario's statistics over its repeats that ended ok,
// from steady state (after the warm-up) when a workload has a warm-up.
// Figures of one workload stay that workload's (Workloads); the scenario's
// own are totals that say which workloads they add up (Producers,
// Consumers), and a latency only when a single workload measured it.
type Aggregate struct {
	Repeats int `json:"repeats"` // counted: status ok
	LeftOut int `json:"left_out,omitempty"`
	// Producers are the producing workloads (produce and end-to-end) whose
	// records, records/s and MB/s the totals add up, per repeat.
	// ProducersInSequence: in some repeat they did not all run at one
	// moment (phases one after the other); records still add up, but
	// there is no total records/s or MB/s (N = 0).
	Producers           []string `json:"producers,omitempty"`
	ProducersInSequence bool     `json:"producers_in_sequence,omitempty"`
	// Records is the records acknowledged per repeat; RecordsTotal their
	// exact sum over the repeats (Records is float64, which rounds counts
	// past 2^53; absent from results of kbench before it).
	Records       Stats  `json:"records"`
	RecordsTotal  *int64 `json:"records_total,omitempty"`
	RecordsPerSec Stats  `json:"records_per_sec"`
	MiBPerSec     Stats  `json:"mib_per_sec"`
	// The publish latency figures (N = 0 unless exactly one workload
	// measured publish latency: with several, each has its own in
	// Workloads, never merged).
	P50Ms  Stats `json:"p50_ms"`
	P95Ms  Stats `json:"p95_ms"`
	P99Ms  Stats `json:"p99_ms"`
	P999Ms Stats `json:"p99_9_ms"`
	MaxMs  Stats `json:"max_ms"`
	// Latency is the publish latency merged over every counted repeat.
	Latency *Latency `json:"latency,omitempty"`
	// EndToEndP99Ms and EndToEnd: where exactly one workload measured
	// end-to-end latency.
	EndToEndP99Ms *Stats   `json:"end_to_end_p99_ms,omitempty"`
	EndToEnd      *Latency `json:"end_to_end_latency,omitempty"`
	// Consumers are the consume workloads whose rates
	// ConsumeRecordsPerSec adds up, per repeat; ConsumersInSequence, as
	// for producers: then there is no ConsumeRecordsPerSec.
	Consumers            []string `json:"consumers,omitempty"`
	ConsumersInSequence  bool     `json:"consumers_in_sequence,omitempty"`
	ConsumeRecordsPerSec *Stats   `json:"consume_records_per_sec,omitempty"`
	SetupSeconds         Stats    `json:"setup_seconds"`
	// FailedRecords counts the records the producers failed over all
	// repeats (failed and interrupted ones too); FailedRepeats, the
	// repeats that failed. Errors is their sum, what compare judges as
	// "errors" (a plan's thresholds count a workload's own failures).
	FailedRecords int64 `json:"failed_records"`
	FailedRepeats int   `json:"failed_repeats"`
	Errors        int64 `json:"errors"`
	// Unstable: records/s varied by more than UnstableCV between repeats.
	Unstable bool `json:"unstable"`
	// ShortSteady: a producer's steady window was under
	// ShortSteadySeconds in a counted repeat (ShortestSteadySeconds the
	// shortest): its steady figures rest on too little time.
	ShortSteady           bool     `json:"short_steady,omitempty"`
	ShortestSteadySeconds float64  `json:"shortest_steady_seconds,omitempty"`
	GeneratorBound        bool     `json:"generator_bound"`
	GeneratorReasons      []string `json:"generator_reasons,omitempty"`
	// Workloads are each workload's own figures, in the plan's order.
	Workloads []WorkloadAggregate `json:"workloads,omitempty"`
}

// WorkloadAggregate is one workload's statistics over the counted repeats;
// a figure the workload does not measure is absent.
type WorkloadAggregate struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Producing workloads: records acknowledged (RecordsTotal: their
	// exact sum over the repeats), rates and publish latency.
	Records       *Stats   `json:"records,omitempty"`
	RecordsTotal  *int64   `json:"records_total,omitempty"`
	RecordsPerSec *Stats   `json:"records_per_sec,omitempty"`
	MiBPerSec     *Stats   `json:"mib_per_sec,omitempty"`
	P50Ms         *Stats   `json:"p50_ms,omitempty"`
	P95Ms         *Stats   `json:"p95_ms,omitempty"`
	P99Ms         *Stats   `json:"p99_ms,omitempty"`
	P999Ms        *Stats   `json:"p99_9_ms,omitempty"`
	MaxMs         *Stats   `json:"max_ms,omitempty"`
	Latency       *Latency `json:"latency,omitempty"`
	// End-to-end workloads.
	EndToEndP99Ms *Stats   `json:"end_to_end_p99_ms,omitempty"`
	EndToEnd      *Latency `json:"end_to_end_latency,omitempty"`
	// Consume workloads.
	ConsumeRecordsPerSec *Stats `json:"consume_records_per_sec,omitempty"`
	GeneratorBound       bool   `json:"generator_bound,omitempty"`
	// Sections are the workload's sections (Workload.Sections) merged
	// over the counted repeats by their own Add.
	Sections Sections `json:"sections,omitempty"`
}

// MaxRate is what a search for the highest rate under an SLO found.
type MaxRate struct {
	// SLO as written: the percentile (p99), its limit and the latency it
	// is on (publish or end-to-end).
	Percentile string  `json:"percentile"`
	LimitMs    float64 `json:"limit_ms"`
	On         string  `json:"on"`
	// Rate is the answer: the highest rate that kept the SLO and was
	// reached in the search and then in enough of the independent
	// confirming runs (records/s); 0 when none was confirmed.
	Rate float64 `json:"rate"`
	// Found is the search's rate before confirmation; Rate is lower when
	// its confirmation failed and the rate stepped down.
	Found float64 `json:"found"`
	// LastMet is the highest rate whose last verdict (a search rate's, or
	// a confirmation's) kept the SLO; FirstMissed the lowest rate
	// above it that missed (0: none was missed).
	LastMet     float64 `json:"last_met"`
	FirstMissed float64 `json:"first_missed,omitempty"`
	// FullSpeed is what the cluster warm-up reached at full speed
	// (records/s); 0 without one.
	FullSpeed float64 `json:"full_speed,omitempty"`
	// Confirmations are the confirming rounds, the last at Rate.
	Confirmations []Confirmation `json:"confirmations,omitempty"`
	// Limit says what stopped the rate from going higher: "cluster" (the
	// SLO broke or the cluster could not take the rate) or "generator"
	// (kbench itself could not send faster; the cluster's limit is higher).
	Limit string `json:"limit"`
	// Stopped says what ended the search short of its own end: "floor"
	// (even the floor rate missed), "ceiling" (the ceiling rate was met),
	// "max_time" (the time bound came first).
	Stopped string `json:"stopped,omitempty"`
	// Floor, Ceiling (0: none) and MaxTimeSeconds are the search's bounds.
	Floor          float64 `json:"floor,omitempty"`
	Ceiling        float64 `json:"ceiling,omitempty"`
	MaxTimeSeconds float64 `json:"max_time_seconds,omitempty"`
	// PerRate is how many probes judge each search rate, and PerRateNeeded
	// how many of them must meet the SLO: the confirmation's own rule.
	PerRate       int     `json:"per_rate,omitempty"`
	PerRateNeeded int     `json:"per_rate_needed,omitempty"`
	Probes        []Probe `json:"probes"`
}

// KeepUp is the share of the rate asked a probe must reach to meet the
// SLO.
const KeepUp = 0.95

// Missed says why a judged probe missed the SLO, each reason once:
// "failed records" (records unacknowledged at its end), "latency" (over
// limitMs), "rate" (reached below KeepUp of the rate asked). Empty when it
// met it.
func (p Probe) Missed(limitMs float64) []string {
	if p.OK || p.Warmup {
		return nil
	}
	var out []string
	if p.Unacknowledged > 0 || p.Failed > 0 {
		out = append(out, "failed records")
	}
	if p.LatencyMs > limitMs {
		out = append(out, "latency")
	}
	if p.Rate > 0 && p.Achieved < KeepUp*p.Rate {
		out = append(out, "rate")
	}
	return out
}

// Probe is one run of the search.
type Probe struct {
	Rate           float64 `json:"rate"`       // asked, records/s
	Achieved       float64 `json:"achieved"`   // records/s
	LatencyMs      float64 `json:"latency_ms"` // at the SLO's percentile
	OK             bool    `json:"ok"`         // within the latency limit at ≥ 95% of the rate, every record acknowledged
	GeneratorBound bool    `json:"generator_bound"`
	// Warmup marks the cluster warm-up (at full speed, Rate 0, or in
	// results before it, at the start rate): not judged.
	Warmup bool `json:"warmup,omitempty"`
	// Confirm marks a confirming run at the rate found.
	Confirm bool `json:"confirm,omitempty"`
	// Records is how many steady-state records the percentile was taken
	// over; Seconds how long the run sent (a probe at a low rate runs
	// longer, so that its percentile rests on enough records).
	Records int64   `json:"records,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	// Unacknowledged records were still outstanding when the run's drain
	// ended: the cluster did not take the rate (the probe missed).
	Unacknowledged int64 `json:"unacknowledged,omitempty"`
	// Sent is every record the run sent (acknowledged or not), Failed
	// those that were not acknowledged.
	Sent   int64 `json:"sent,omitempty"`
	Failed int64 `json:"failed,omitempty"`
	// Step numbers the search's rates (1, 2, …; the warm-up 0) and then
	// its confirming rounds: the runs of one step judge one rate.
	Step int `json:"step,omitempty"`
	// Workers are the workers whose shares of the run were merged (a
	// distributed search's; none in one process).
	Workers []int `json:"workers,omitempty"`
}

// Confirmation is one round of independent runs at a rate: Met of Runs
// kept the SLO, Needed were needed.
type Confirmation struct {
	Rate      float64 `json:"rate"`
	Runs      int     `json:"runs"`
	Met       int     `json:"met"`
	Needed    int     `json:"needed"`
	Confirmed bool    `json:"confirmed"`
}

// CatchUp is a consume workload that started late (start_after) and read
// the backlog from the start of the topic while producers kept writing.
type CatchUp struct {
	StartedAfterSeconds float64 `json:"started_after_seconds"`
	// DrainSeconds is from the consumer's start until it read a record
	// sent after it started (0: it never caught up); Records and
	// RecordsPerSec are what it read until then (to that poll).
	DrainSeconds  float64 `json:"drain_seconds"`
	Records       int64   `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	// DrainSeconds is when the first partition caught up; on a topic of
	// several partitions the others may still hold backlog then.
	// LastDrainSeconds is from the consumer's start until the last of its
	// Partitions read a record sent after it started: the whole backlog
	// read (0: only PartitionsCaughtUp of them ever did). LastRecords is
	// what it had read by then.
	Partitions         int     `json:"partitions,omitempty"`
	PartitionsCaughtUp int     `json:"partitions_caught_up,omitempty"`
	LastDrainSeconds   float64 `json:"last_drain_seconds,omitempty"`
	LastRecords        int64   `json:"last_records,omitempty"`
	// The producers' publish latency over the catch-up (from their
	// interval series).
	ProducerAvgLatencyMs float64 `json:"producer_avg_latency_ms"`
	ProducerMaxLatencyMs float64 `json:"producer_max_latency_ms"`
}

// MissSummary tallies why probes missed the SLO, as "2 over the latency
// limit, 1 below 95% of the rate asked" (a probe may count under several
// reasons); "" when none missed.
func MissSummary(probes []Probe, limitMs float64) string {
	counts := map[string]int{}
	for _, p := range probes {
		for _, why := range p.Missed(limitMs) {
			counts[why]++
		}
	}
	var parts []string
	for _, why := range []string{"latency", "rate", "failed records"} {
		if n := counts[why]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, missWords[why]))
		}
	}
	return strings.Join(parts, ", ")
}

var missWords = map[string]string{
	"latency":        "over the latency limit",
	"rate":           fmt.Sprintf("below %.0f%% of the rate asked", 100*KeepUp),
	"failed records": "with records not acknowledged",
}

// LatestPerKey is what a compacted topic's read-back found: of Keys
// written, LatestLost whose newest acknowledged value was gone (Lost),
// Replaced whose newest value another writer's later record replaced,
// and Superseded older values still present after waiting
// CleanerWaitSeconds for the cleaner.
type LatestPerKey struct {
	Keys               int64   `json:"keys"`
	LatestLost         int64   `json:"latest_lost"`
	Replaced           int64   `json:"replaced"`
	Superseded         int64   `json:"superseded"`
	CleanerWaitSeconds float64 `json:"cleaner_wait_seconds"`
}
