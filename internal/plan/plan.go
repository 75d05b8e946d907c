// Package plan reads study plans: a YAML file naming a cluster, topics,
// workloads, a matrix of parameters to sweep and a repeat count. Load
// parses a plan strictly (every problem at once, each with file:line:column
// and the field's path), applies --set overrides and expands the matrix
// into Scenarios, fully typed, for the runner.
//
// YAML comes from go.yaml.in/yaml/v3, the YAML organisation's maintained
// continuation of gopkg.in/yaml.v3 (archived): its node tree keeps the line
// and column of every value, which strict errors and ${param}
// substitution before typed decoding both need.
package plan

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/serde"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/faults"
	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/userr"
)

// Workload types.
const (
	Produce  = "produce"
	Consume  = "consume"
	EndToEnd = "end-to-end"
)

// What to do with a topic that exists.
const (
	Recreate = "recreate"
	Reuse    = "reuse"
	Fail     = "fail"
)

// Defaults and bounds.
const (
	DefaultRepeat      = 1
	MaxRepeat          = 1000
	MaxClients         = 1000
	MaxPartitions      = 100_000
	MaxLocalBrokers    = 9 // the local cluster's limit
	DefaultIdleTimeout = 10 * time.Second
	MaxScenarios       = 10_000
	// MaxFile bounds a plan, template, OMB workload or OMB driver file
	// (a plan of MaxScenarios written out is a few MB).
	MaxFile = 16 << 20 // bytes
	MaxVUs  = 100_000
	MaxSeed = 1<<53 - 1 // exact in JSON readers that hold numbers as doubles
	// usersPerProducer and maxVUProducers share virtual users among
	// producer clients as the virtual-users study did: one producer per
	// 2000 users, at least 1, at most 100.
	usersPerProducer = 2000
	maxVUProducers   = 100
)

// Plan is a parsed plan, after --set.
type Plan struct {
	Name        string
	Description string
	Cluster     Cluster
	Repeat      int
	// Seed, when SeedSet, makes the random values of every workload
	// without a message seed the same run after run; without it each run
	// draws a fresh one (the runner records it in result.json).
	Seed    uint64
	SeedSet bool
	// DeleteTopics deletes the plan's topics once the run has ended, so
	// that they are not left on the cluster for the next study (whose
	// faults would recover them too).
	DeleteTopics bool
	// Watch names the system's own consumer groups whose lag each repeat
	// samples (watch: {groups: [...]}): what the load did to the
	// applications beside it.
	Watch *Watch
	// File is the plan's path as given; Dir its folder, against which
	// payload files are resolved.
	File, Dir string

	params    []string // matrix parameter names, in order
	scenarios []Scenario
	redacted  []byte
	warnings  []string
	// brokerRefs are the faults' {broker: N} targets, checked against a
	// named cluster once it is loaded (CheckBrokers).
	brokerRefs []brokerRef
	// OMB, for a plan translated from an OpenMessaging Benchmark workload
	// (LoadOMB), is what it keeps of the OMB files; nil otherwise.
	OMB *OMBSource
	// SchemaRegistry is the Confluent serializer properties
	// (schema.registry.url, basic.auth.*, auto.register.schemas, ...),
	// checked by serde.ConfigFrom; nil when the plan gives none. A plan
	// whose messages have a format and that names no URL gets a registry
	// started with its local cluster.
	SchemaRegistry map[string]string
}

// UsesSchemas reports whether any workload's messages have a schema format.
func (p *Plan) UsesSchemas() bool {
	for _, sc := range p.scenarios {
		for _, w := range sc.Workloads {
			if w.Message.Format != "" {
				return true
			}
		}
	}
	return false
}

// brokerRef is a fault target naming a broker, and where the plan wrote it.
type brokerRef struct {
	id    int32
	where string // file:line:column: path
}

// CheckBrokers checks the faults' broker targets against a cluster whose
// node ids are 1 to n (a named local cluster, known only once loaded).
func (p *Plan) CheckBrokers(n int) error {
	var bad []string
	seen := map[string]bool{}
	for _, r := range p.brokerRefs {
		if r.id >= 1 && int(r.id) <= n || seen[r.where] {
			continue
		}
		seen[r.where] = true
		bad = append(bad, fmt.Sprintf("%s: cluster %q has brokers 1 to %d, not %d; pick one of them", r.where, p.Cluster.Name, n, r.id))
	}
	if len(bad) == 0 {
		return nil
	}
	return userr.New(errors.New(strings.Join(bad, "\n")))
}

// Cluster says where to run: a running local cluster by Name, a cluster
// at Bootstrap, or neither (a local cluster is started for the run).
type Cluster struct {
	// Name is a local cluster started with `kbench cluster up --name`:
	// kbench takes its bootstrap from its state and acts on its broker
	// processes for faults. NameAt is where the plan says so
	// ("plan.yaml:3:9: cluster.name"), for errors found at run time.
	Name, NameAt string
	// Bootstrap servers of any other cluster.
	Bootstrap string
	// Properties are Java client properties every client gets.
	Properties map[string]string
	Local      Local
	// FaultCommands, on a remote cluster, are the commands run for each
	// fault action ({broker} is replaced by the broker id); FaultShell runs
	// them with sh -c.
	FaultCommands map[string]string
	FaultShell    bool
	// Metrics are the remote cluster's Prometheus endpoints, scraped
	// through each repeat for the brokers' own metrics (cluster.metrics).
	Metrics []MetricsEndpoint
}

// Local is the local cluster started when there is no bootstrap.
type Local struct {
	Brokers       int
	Version, Heap string
	versionNode   *yaml.Node // where version was written
	BrokerConfigs map[string]string
	// Timeout bounds the cluster's start (0: cluster up's default, 90 s):
	// a loaded machine's brokers may need longer.
	Timeout time.Duration
	// NetworkFaults is set, not written: a scenario has network faults,
	// so the cluster runs its connections through proxies (a named
	// cluster must have been started with them).
	NetworkFaults bool
	// SchemaRegistry is set, not written: messages have a schema format
	// and the plan names no schema.registry.url, so a registry is started
	// with the cluster.
	SchemaRegistry bool
	// TieredStorage (tiered_storage: true) starts the brokers with remote
	// log storage (cluster up --tiered-storage).
	TieredStorage bool
	// RemoteStorage is set, not written: a topic of the plan has
	// remote.storage.enable=true or a workload waits for the remote tier,
	// so a named cluster must have tiered storage.
	RemoteStorage bool
}

// Scenario is one point of the matrix, resolved and typed.
type Scenario struct {
	Index     int    // 1-based
	Name      string // "record_size=100", or the plan's name without a matrix
	Params    []Param
	Topics    []Topic
	Workloads []Workload
	// Faults is the timeline each repeat runs, from the producers' start.
	Faults []faults.Fault
	// BrokerConfigs are dynamic broker settings in force while the
	// scenario runs (cluster.broker_configs, with its matrix values): set
	// cluster-wide before its first repeat, the earlier values put back
	// after its last.
	BrokerConfigs map[string]string
}

// Param is one swept parameter's value in a scenario.
type Param struct{ Name, Value string }

// Topic is a topic a scenario prepares.
type Topic struct {
	Name        string
	Partitions  int // 0: not given (existing: reuse only)
	Replication int // 0: the broker's default
	Configs     map[string]string
	Existing    string
}

// Workload is one workload of a scenario.
type Workload struct {
	Name, Type, Topic string
	// typeRule is what its type does, as the plan was read (a type added
	// with WithType); nil: the built-in type's.
	typeRule   *TypeRule
	Clients    int
	Group      string
	Properties map[string]string
	Message    Message
	Rate       float64 // records/s in total; 0 is unlimited
	// MaxRate, with rate: max, searches for the highest rate that keeps
	// the SLO; each probe lasts Duration.
	MaxRate *MaxRate
	// Balanced, with rate: balanced, runs OpenMessaging Benchmark's search
	// for the highest rate producers and consumers sustain in balance
	// (load.Balance): from 10,000 records/s over every balanced workload,
	// adjusted every 3 s for Duration.
	Balanced bool
	// Stages ramp the rate (Duration is their sum).
	Stages []load.Stage
	// VUStages ramp the number of virtual users (the closed model; Duration
	// is their sum), from VUs.
	VUStages []load.VUStage
	// VUs runs the closed model: that many virtual users, each sending a
	// record and waiting for its acknowledgement before the next; with
	// VUStages, the users at the ramp's start (default 1, as k6's startVUs).
	VUs            int
	Records        int64 // 0: no count limit
	Duration       time.Duration
	WarmupRecords  int64
	WarmupDuration time.Duration
	// Timeout stops a consume workload when no record arrived for this long.
	Timeout time.Duration
	// StartAfter starts the workload this long after the scenario's
	// producers start; AfterWorkload, once that workload has ended (with
	// both, after both). A consume workload started late reads its topic
	// from the start: a catch-up read, or a read of what a producing phase
	// wrote.
	StartAfter    time.Duration
	AfterWorkload string
	afterNode     *yaml.Node
	// Backlog starts a consume workload once the producers have written
	// this many value bytes (with StartAfter: after both).
	Backlog int64
	// WaitFor, WaitRemote, starts a consume workload once its topic's
	// oldest records are only in the remote tier (tiered storage), after
	// StartAfter and Backlog, waiting at most RemoteWait.
	WaitFor     string
	waitForNode *yaml.Node
	// Thresholds fail the run (exit 99) when crossed; everything is still
	// written.
	Thresholds []Threshold
	// Verify reads every record back after the run and reports what was
	// lost, duplicated or reordered (on by default for produce workloads
	// of a plan with faults).
	Verify bool
	// LatestPerKey (verify: {latest_per_key: true}) judges a keyed
	// workload on a compacted topic by what compaction promises: the
	// newest acknowledged value of every key is read back; older ones may
	// be gone.
	LatestPerKey bool
	// Profile is a producer properties profile applied under the
	// workload's and the cluster's properties (kafkaconf.Profiles).
	Profile string
	// Transaction wraps a producing workload's records in transactions
	// (transaction: {duration: 3s, records: 1000}); nil: only when the
	// properties set transactional.id.
	Transaction *Transaction
	// SendTimeHeader stamps a produce workload's records with their send
	// time (workload.SentHeader), so that consume workloads on its topic
	// measure end-to-end latency to the microsecond, not from the record
	// timestamp's milliseconds (end-to-end workloads always do).
	SendTimeHeader bool
	// Share is how a share-consume workload's members acknowledge
	// records (set for every share-consume workload).
	Share *Share
	// Processing is a reader's processing time per record (a slow
	// consumer): consume and share-consume workloads; nil for none.
	Processing *Processing
	// Reply is how a round-trip workload reads its service's outputs
	// (set for every round-trip workload; nil for others).
	Reply *Reply
	// verifyNode is where verify was written (nil: not given).
	verifyNode *yaml.Node
	// topicNode is where topic was written, rateNode rate: balanced.
	topicNode, rateNode *yaml.Node
}

// Message says what records a producing workload sends: one of Size,
// PayloadFile or Template.
type Message struct {
	Size        int64             // random values of this many bytes
	PayloadFile string            // or records read from this file
	Delimiter   string            // between the file's records (default a newline)
	WholeFile   bool              // delimiter: none: the whole file is every record's value
	Template    *payload.Template // or JSON rendered per record
	Seed        uint64            // makes random values and templates reproducible (when SeedSet)
	SeedSet     bool              // seed was given; otherwise the plan's seed decides
	RandomRatio float64           // with Size: the random share of each value (default 1)
	KeyRange    int64             // keys 0..KeyRange-1; 0 sends no keys
	KeyDist     string            // how keys are picked: uniform (default), sequential, zipfian
	Headers     map[string]string // sent with every record
	// KeyTemplate renders each record's key; HeaderTemplates each named
	// header (a string result without its quotes).
	KeyTemplate     *payload.Template
	HeaderTemplates map[string]payload.Template
	// Pool, with Size, sends values from a pool of that many made before
	// the run, random bytes then zeros (OpenMessaging Benchmark's
	// randomized payloads; payload.Pool); 0: windows of random letters.
	Pool int
	// KeyFormat is the keys' text: decimal (default) or omb
	// (payload.KeyFormats).
	KeyFormat string
	// Format, with Template, encodes each value with Schema (serde.Avro,
	// serde.JSONSchema, serde.Protobuf) framed for a schema registry; ""
	// sends the template's JSON. KeySchema, with KeyTemplate, encodes keys
	// in the same format.
	Format    serde.Format
	Schema    *serde.Schema
	KeySchema *serde.Schema
	// SchemaFile is where Schema came from ("" for an inline schema).
	SchemaFile string
	// Evolution registers a new version of the values' schema mid-run
	// (schema_evolution); nil: none.
	Evolution *Evolution
}

// Evolution is a compatible new version of a message's value schema,
// registered After the workload starts; the producers then encode with it.
type Evolution struct {
	After  time.Duration
	Schema *serde.Schema
	File   string // "" for an inline schema
}

// Transaction is when a transactional producer commits: after Duration,
// or after Records records, whichever comes first (0: not by that).
type Transaction struct {
	Duration time.Duration
	Records  int64
	// AbortRatio is the share of transactions aborted instead of
	// committed (0 to 1), drawn from the run's seed.
	AbortRatio float64
}

// MaxRate is a search for the highest rate that keeps a latency SLO.
type MaxRate struct {
	Percentile float64       // 0.99 for p99
	Limit      time.Duration // the latency the percentile must stay under
	EndToEnd   bool          // the SLO is on end-to-end latency, not publish
	Start      float64       // the first probe's rate (records/s)
	// Probes is how many runs judge each search rate, by the
	// confirmation's own rule: ConfirmNeeded(Probes) of them must keep
	// the SLO (default 1).
	Probes int
	// Confirm is how many independent runs at the rate found confirm it
	// (default 5); the answer needs ConfirmNeeded of them to keep the SLO.
	Confirm int
	// WarmCluster is how long the search first sends at full speed, not
	// judged (default 30s; 0 skips it): a cold cluster breaks an SLO it
	// keeps a minute later, and the search never looks above a rate that
	// failed.
	WarmCluster time.Duration
	// Floor is the lowest rate the search asks (default Start/10): when
	// even the floor misses, the search stops and says so rather than
	// halving on towards nothing.
	Floor float64
	// Ceiling, when above 0, is the highest rate the search asks: kept
	// there, the search goes no higher (the answer is the ceiling, its
	// limit "not reached").
	Ceiling float64
	// MaxTime bounds the whole search, warm-up and confirmation included
	// (default 1h): at the bound it stops with the rate it confirmed, or
	// says none was.
	MaxTime time.Duration
}

// DefaultMaxTime is a rate search's time bound when the plan gives none.
const DefaultMaxTime = time.Hour

// ConfirmNeeded is how many of n confirming runs must keep the SLO: 4 of
// 5, 3 of 3, every run of fewer.
func ConfirmNeeded(n int) int { return (4*n + 4) / 5 }

// Parameters are the matrix's parameter names, in the plan's order.
func (p *Plan) Parameters() []string { return append([]string(nil), p.params...) }

// Scenarios returns the matrix's points in order; one without a matrix.
func (p *Plan) Scenarios() ([]Scenario, error) { return p.scenarios, nil }

// Warnings are what the plan says that will likely not happen, each with
// file:line:column: the run goes ahead.
func (p *Plan) Warnings() []string { return p.warnings }

// Redacted is the plan as run (after --set), with secret property values
// replaced, for the results folder.
func (p *Plan) Redacted() []byte { return p.redacted }

// Estimate is the least time one repeat of the scenario measures: records
// at a fixed rate, or a duration; ok is false when a workload runs as fast
// as the cluster allows.
func (sc *Scenario) Estimate() (d time.Duration, ok bool) {
	index := map[string]int{}
	for i, w := range sc.Workloads {
		index[w.Name] = i
	}
	// start is when workload i starts: its start_after, after the end of
	// the workload it waits for (chains are checked to end).
	var end func(i, depth int) time.Duration
	start := func(i, depth int) time.Duration {
		w := sc.Workloads[i]
		s := w.StartAfter
		if j, ok := index[w.AfterWorkload]; ok && w.AfterWorkload != "" && depth < len(sc.Workloads) {
			s += end(j, depth+1)
		}
		return s
	}
	end = func(i, depth int) time.Duration {
		own, _ := sc.Workloads[i].estimate()
		return start(i, depth) + own
	}
	for i := range sc.Workloads {
		if _, ok := sc.Workloads[i].estimate(); !ok {
			return 0, false
		}
		d = max(d, end(i, 0))
	}
	return d, d > 0
}

// estimate is how long the workload measures once started; a consume
// workload counts nothing (it ends with the producers or on its own stop).
func (w *Workload) estimate() (time.Duration, bool) {
	switch {
	case w.MaxRate != nil:
		return 0, false // a search: as many probes as it takes
	case len(w.Stages) > 0 || len(w.VUStages) > 0:
		return w.Duration, true
	case w.Duration > 0 && (w.Rate == 0 || w.Records == 0):
		return w.Duration, true
	case w.Rate > 0 && w.Records > 0:
		wd := time.Duration(float64(w.Records) / w.Rate * float64(time.Second))
		if w.Duration > 0 {
			wd = min(wd, w.Duration)
		}
		return wd, true
	case !w.Sends():
		return 0, true // ends with the producers, or on its own stop condition
	}
	return 0, false
}

// Watch is what a plan watches beside its workloads.
type Watch struct {
	// Groups are consumer groups of the system (not the plan's own): their
	// lag, from committed offsets, is sampled every second.
	Groups []string
}
