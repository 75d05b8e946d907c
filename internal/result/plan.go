package result

import "time"

// KindPlan is the kind of a document written by `kbench run`.
const KindPlan = "plan"

// StatusInterrupted marks a run that Ctrl-C (or SIGTERM) ended: what it
// measured until then is kept.
const StatusInterrupted = "interrupted"

// PlanRun is a study plan's run: every scenario of its matrix with every
// repeat, and the statistics over repeats.
type PlanRun struct {
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Parameters  []string     `json:"parameters,omitempty"` // swept, in the plan's order
	Repeat      int          `json:"repeat"`
	Environment *Environment `json:"environment,omitempty"`
	Scenarios   []Scenario   `json:"scenarios"`
}

// Environment is what the numbers were measured on.
type Environment struct {
	Cluster        string   `json:"cluster"`                   // "local" (started by kbench) or "external"
	KafkaVersion   string   `json:"kafka_version,omitempty"`   // the local cluster's release
	BrokerVersions []string `json:"broker_versions,omitempty"` // as the brokers' ApiVersions answer, distinct
	Brokers        int      `json:"brokers,omitempty"`         // how many answered
	CPUs           int      `json:"cpus"`
	GoMaxProcs     int      `json:"gomaxprocs"`
	OS             string   `json:"os,omitempty"`   // the client machine's, as Go names it
	Arch           string   `json:"arch,omitempty"` // amd64, arm64, ...
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
	// Thresholds are the plan's thresholds checked against the aggregate.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
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
	// Config is the workload's effective client properties, secrets
	// redacted.
	Config map[string]string `json:"config,omitempty"`
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
}

// Aggregate is a scenario's statistics over its repeats that ended ok. A
// repeat's records/s and MB/s are the sums over its producing workloads;
// its latency percentiles come from their merged histogram; both from
// steady state (after the warm-up) when the workload has a warm-up.
type Aggregate struct {
	Repeats int `json:"repeats"` // counted: status ok
	LeftOut int `json:"left_out,omitempty"`
	// Records is the records acknowledged per repeat.
	Records       Stats `json:"records"`
	RecordsPerSec Stats `json:"records_per_sec"`
	MiBPerSec     Stats `json:"mib_per_sec"`
	P50Ms         Stats `json:"p50_ms"`
	P95Ms         Stats `json:"p95_ms"`
	P99Ms         Stats `json:"p99_ms"`
	P999Ms        Stats `json:"p99_9_ms"`
	MaxMs         Stats `json:"max_ms"`
	// Latency is the publish latency merged over every counted repeat.
	Latency *Latency `json:"latency,omitempty"`
	// EndToEndP99Ms and EndToEnd: where end-to-end latency was measured.
	EndToEndP99Ms *Stats   `json:"end_to_end_p99_ms,omitempty"`
	EndToEnd      *Latency `json:"end_to_end_latency,omitempty"`
	// ConsumeRecordsPerSec sums the consume workloads' rates per repeat.
	ConsumeRecordsPerSec *Stats `json:"consume_records_per_sec,omitempty"`
	SetupSeconds         Stats  `json:"setup_seconds"`
	// Errors counts failed records over all repeats, and repeats that
	// failed.
	Errors int64 `json:"errors"`
	// Unstable: records/s varied by more than UnstableCV between repeats.
	Unstable         bool     `json:"unstable"`
	GeneratorBound   bool     `json:"generator_bound"`
	GeneratorReasons []string `json:"generator_reasons,omitempty"`
}

// MaxRate is what a search for the highest rate under an SLO found.
type MaxRate struct {
	// SLO as written: the percentile (p99), its limit and the latency it
	// is on (publish or end-to-end).
	Percentile string  `json:"percentile"`
	LimitMs    float64 `json:"limit_ms"`
	On         string  `json:"on"`
	// Rate is the highest probed rate that kept the SLO and was reached
	// (records/s); 0 when none did.
	Rate float64 `json:"rate"`
	// Limit says what stopped the rate from going higher: "cluster" (the
	// SLO broke or the cluster could not take the rate) or "generator"
	// (kbench itself could not send faster; the cluster's limit is higher).
	Limit  string  `json:"limit"`
	Probes []Probe `json:"probes"`
}

// Probe is one run of the search.
type Probe struct {
	Rate           float64 `json:"rate"`       // asked, records/s
	Achieved       float64 `json:"achieved"`   // records/s
	LatencyMs      float64 `json:"latency_ms"` // at the SLO's percentile
	OK             bool    `json:"ok"`         // kept the SLO at ≥ 95% of the rate
	GeneratorBound bool    `json:"generator_bound"`
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
	// The producers' publish latency over the catch-up (from their
	// interval series).
	ProducerAvgLatencyMs float64 `json:"producer_avg_latency_ms"`
	ProducerMaxLatencyMs float64 `json:"producer_max_latency_ms"`
}
