package compat

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

// ProducerTool is the name the Apache tool reports itself as.
const ProducerTool = "kafka-producer-perf-test"

// ProducerOptions are the options of every Apache ProducerPerformance
// release since 2.x (old and 4.2+ names alike), then kbench's additions.
var ProducerOptions = []Option{
	{Name: "--topic", Kind: Value, Metavar: "TOPIC", Help: "Produce records to this topic."},
	{Name: "--num-records", Kind: Value, Metavar: "NUM-RECORDS", Help: "Number of records to produce."},
	{Name: "--record-size", Kind: Value, Metavar: "RECORD-SIZE", Help: "Record size in bytes (values of random letters A-Z)."},
	{Name: "--payload-file", Kind: Value, Metavar: "PAYLOAD-FILE", Help: "File to read record values from, split by --payload-delimiter; a random one per record."},
	{Name: "--payload-delimiter", Kind: Value, Metavar: "PAYLOAD-DELIMITER", Help: `Delimiter (a regular expression) for --payload-file. (default: \n)`},
	{Name: "--payload-monotonic", Kind: Flag, Help: "Record values are the record number 0, 1, 2, ..."},
	{Name: "--throughput", Kind: Value, Metavar: "THROUGHPUT", Help: "Target records/sec (fractions allowed); -1 for no limit. At a fixed rate kbench measures latency from each record's intended send time."},
	{Name: "--producer-props", Kind: List, Metavar: "PROP-NAME=PROP-VALUE", Help: "Producer properties, Java client names.", Deprecated: "--command-property"},
	{Name: "--command-property", Kind: List, Metavar: "PROP-NAME=PROP-VALUE", Help: "Producer properties, Java client names; override --command-config."},
	{Name: "--producer.config", Kind: Value, Metavar: "CONFIG-FILE", Help: "Producer properties file.", Deprecated: "--command-config"},
	{Name: "--command-config", Kind: Value, Metavar: "CONFIG-FILE", Help: "Producer properties file."},
	{Name: "--bootstrap-server", Kind: Value, Metavar: "BOOTSTRAP-SERVER", Help: "Server(s) to connect to; overrides bootstrap.servers."},
	{Name: "--print-metrics", Kind: Flag, Help: "Print the client metrics table at the end."},
	{Name: "--transactional-id", Kind: Value, Metavar: "TRANSACTIONAL-ID", Help: "Transactional id; enables transactions."},
	{Name: "--transaction-duration-ms", Kind: Value, Metavar: "TRANSACTION-DURATION", Help: "Commit a transaction after this long. (default: 3000 when transactions are on)"},
	{Name: "--warmup-records", Kind: Value, Metavar: "WARMUP-RECORDS", Help: "Records left out of the steady-state summary line. (default: 0)"},
	{Name: "--reporting-interval", Kind: Value, Metavar: "INTERVAL-MS", Help: "Progress line interval in ms. (default: 5000)"},
	{Name: "--record-key-range", Kind: Value, Metavar: "N", Help: "Give records keys: the numbers 0..N-1, one at random per record."},
	{Name: "--help", Kind: Flag, Help: "Show this help."},
	{Name: "--json", Kind: Value, Metavar: "FILE", Help: "Write the result document (JSON, with histograms) to FILE.", Kbench: true},
	{Name: "--duration", Kind: Value, Metavar: "DURATION", Help: "Stop sending after this long (e.g. 30s, 5m); --num-records becomes optional. Records unanswered 5 s later (delivery.timeout.ms if set) are cancelled, counted as unresolved.", Kbench: true},
	{Name: "--producers", Kind: Value, Metavar: "N", Help: "Run N producer clients in parallel, splitting records and rate. (default: 1)", Kbench: true},
	{Name: "--partitions", Kind: Value, Metavar: "N", Help: "Create the topic with N partitions if it does not exist; an existing topic must have N.", Kbench: true},
	{Name: "--replication-factor", Kind: Value, Metavar: "R", Help: "Replication factor when kbench creates the topic; an existing topic must have R. (default: broker default)", Kbench: true},
	{Name: "--e2e", Kind: Flag, Help: "Also consume the topic while producing and report end-to-end latency (send → consumed).", Kbench: true},
	{Name: "--profile", Kind: Value, Metavar: "PROFILE", Help: "Producer properties as the fastest clients set them, under yours: throughput (batch.size 1 MiB, linger.ms 0, buffer.memory 256 MiB, 5 in flight). (default: Java's defaults)", Kbench: true},
	{Name: "--metrics-addr", Kind: Value, Metavar: "HOST:PORT", Help: "Serve Prometheus metrics at HOST:PORT during the run, the names a plan serves (docs/metrics.md).", Kbench: true},
	{Name: "--metrics-hold", Kind: Value, Metavar: "DURATION", Help: "With --metrics-addr: keep serving this long after the run, for a last scrape.", Kbench: true},
	{Name: "--local", Kind: Flag, Help: "Start a local Apache Kafka for this run and stop it afterwards.", Kbench: true},
	{Name: "--local-brokers", Kind: Value, Metavar: "N", Help: "Brokers of the --local cluster. (default: 1)", Kbench: true},
	{Name: "--local-kafka-version", Kind: Value, Metavar: "VERSION", Help: "Apache Kafka release of the --local cluster, any 4.x release Maven Central serves. (default: the local cluster's default)", Kbench: true},
}

// ProducerUsage is the synopsis printed by --help.
const ProducerUsage = "kbench producer-perf-test --topic TOPIC (--num-records N | --duration D) --throughput T " +
	"(--record-size SIZE | --payload-file FILE | --payload-monotonic) " +
	"(--bootstrap-server HOST:PORT | --command-property bootstrap.servers=HOST:PORT ... | --local) [options]"

// DefaultTransactionDuration is the Apache tool's default commit interval.
const DefaultTransactionDuration = 3000 * time.Millisecond

// ProducerArgs is a validated producer-perf-test command line.
type ProducerArgs struct {
	Topic             string
	NumRecords        int64 // 0 with Duration: until the duration ends
	RecordSize        int
	PayloadFile       string
	PayloadDelimiter  string
	PayloadMonotonic  bool
	Throughput        float64 // records/s; -1 unlimited (the only value <= 0 allowed)
	PropFiles         []string
	PropPairs         []PropPair
	BootstrapServer   string
	PrintMetrics      bool
	TransactionalID   string
	TransactionMs     int64 // > 0 when given
	WarmupRecords     int64
	ReportingInterval time.Duration
	RecordKeyRange    int
	Help              bool
	JSONPath          string
	Metrics           MetricsArgs
	Duration          time.Duration
	Producers         int
	Partitions        int32
	ReplicationFactor int16
	EndToEnd          bool
	Local             bool
	LocalBrokers      int
	LocalVersion      string
	Profile           string // --profile: a kafkaconf profile under the user's properties
	// used records the deprecated options given, for DeprecationWarnings.
	used map[string]bool
}

// DeprecationWarnings are the lines Apache 4.3's tool prints on stdout,
// after reading the payload file, for each deprecated option used.
func (p *ProducerArgs) DeprecationWarnings() []string {
	var out []string
	for _, old := range []string{"--producer-props", "--producer.config"} {
		if !p.used[old] {
			continue
		}
		for _, o := range ProducerOptions {
			if o.Name == old {
				out = append(out, fmt.Sprintf("Option %s has been deprecated and will be removed in a future version. Use %s instead.", old, o.Deprecated))
			}
		}
	}
	return out
}

// PropPair is one k=v item and the option it came from.
type PropPair struct{ Item, Option string }

// ParseProducerArgs parses and validates a producer-perf-test command line
// with the Apache tool's rules, plus kbench's for its own options.
func ParseProducerArgs(args []string) (*ProducerArgs, error) {
	a, err := Parse(ProducerTool, ProducerOptions, args, false)
	if err != nil {
		return nil, err
	}
	p := &ProducerArgs{Help: a.Has("--help"), used: map[string]bool{}}
	for _, old := range []string{"--producer-props", "--producer.config"} {
		p.used[old] = a.Has(old)
	}
	if p.Help {
		return p, nil
	}
	var errs []error
	num := func(name string, def int64) int64 {
		v, err := a.Int64(name, def)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	p.Topic = a.String("--topic")
	p.NumRecords = num("--num-records", 0)
	p.RecordSize = int(num("--record-size", 0))
	p.PayloadFile = a.String("--payload-file")
	p.PayloadDelimiter = a.String("--payload-delimiter")
	if !a.Has("--payload-delimiter") || p.PayloadDelimiter == `\n` {
		p.PayloadDelimiter = "\n" // the Apache tool's default, shown escaped in its help
	}
	p.PayloadMonotonic = a.Has("--payload-monotonic")
	p.Throughput, err = a.Float64("--throughput", 0)
	if err != nil {
		errs = append(errs, err)
	}
	for _, opt := range []string{"--producer.config", "--command-config"} {
		if a.Has(opt) {
			p.PropFiles = append(p.PropFiles, a.String(opt))
		}
	}
	for _, opt := range []string{"--producer-props", "--command-property"} {
		for _, item := range a.List(opt) {
			p.PropPairs = append(p.PropPairs, PropPair{Item: item, Option: opt})
		}
	}
	p.BootstrapServer = a.String("--bootstrap-server")
	p.PrintMetrics = a.Has("--print-metrics")
	p.TransactionalID = a.String("--transactional-id")
	p.TransactionMs = num("--transaction-duration-ms", 0)
	p.WarmupRecords = max(num("--warmup-records", 0), 0) // the Apache tool clamps negatives to 0
	p.ReportingInterval = time.Duration(num("--reporting-interval", 5000)) * time.Millisecond
	p.RecordKeyRange = int(num("--record-key-range", 0))
	p.JSONPath = jsonPath(a, &errs)
	p.Metrics = metricsArgs(a, &errs)
	p.Producers = int(num("--producers", 1))
	p.Partitions = int32(bounded(a, "--partitions", 0, math.MaxInt32, &errs))
	p.ReplicationFactor = int16(bounded(a, "--replication-factor", -1, math.MaxInt16, &errs))
	p.EndToEnd = a.Has("--e2e")
	p.Local = a.Has("--local")
	p.LocalBrokers = int(num("--local-brokers", 1))
	p.LocalVersion = a.String("--local-kafka-version")
	p.Profile = a.String("--profile")
	if a.Has("--duration") {
		d, err := units.ParseDuration(a.String("--duration"))
		switch {
		case errors.Is(err, units.ErrTooLong):
			errs = append(errs, userr.Errorf("option --duration: %v", err))
		case err != nil:
			errs = append(errs, userr.Errorf("option --duration: %q is not a positive duration; use forms like 30s, 5m, 1h30m", a.String("--duration")))
		}
		p.Duration = d
	}
	if len(errs) > 0 {
		return nil, joinUsage(errs)
	}
	if err := p.validate(a); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *ProducerArgs) validate(a *Args) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, userr.Errorf(format, args...)) }
	if p.Topic == "" {
		bad("argument --topic is required")
	} else if err := CheckTopic(p.Topic); err != nil {
		bad("--topic: %v", err)
	}
	switch {
	case !a.Has("--num-records") && p.Duration == 0:
		bad("argument --num-records is required (or kbench's --duration)")
	case a.Has("--num-records") && p.NumRecords <= 0:
		bad("--num-records should be greater than zero")
	}
	if !a.Has("--throughput") {
		bad("argument --throughput is required (use -1 for no limit)")
	}
	switch {
	case math.IsNaN(p.Throughput) || math.IsInf(p.Throughput, 0):
		bad("--throughput %v is not a finite number", p.Throughput)
	case a.Has("--throughput") && p.Throughput <= 0 && p.Throughput != -1:
		// The Java tool waits forever at 0 and documents only -1 for no limit.
		bad("--throughput %v: give a rate above 0 records/sec, or -1 for no limit", p.Throughput)
	}
	payloads := 0
	for _, set := range []bool{a.Has("--record-size"), a.Has("--payload-file"), p.PayloadMonotonic} {
		if set {
			payloads++
		}
	}
	if payloads != 1 {
		bad("exactly one of --record-size, --payload-file or --payload-monotonic must be given (got %d)", payloads)
	}
	switch {
	case a.Has("--record-size") && p.RecordSize <= 0:
		bad("--record-size should be greater than zero")
	case p.RecordSize > MaxRecordSize:
		bad("--record-size %d: at most %d (1 GiB), the largest record kbench sends; Kafka's max.request.size and the broker's message.max.bytes must allow the size too", p.RecordSize, MaxRecordSize)
	}
	if p.NumRecords > 0 && p.WarmupRecords >= p.NumRecords {
		bad("the value for --warmup-records must be strictly fewer than the number of records in the test, --num-records")
	}
	if a.Has("--transaction-duration-ms") && p.TransactionMs <= 0 {
		bad("--transaction-duration-ms should be greater than zero")
	}
	if p.ReportingInterval <= 0 {
		bad("--reporting-interval should be greater than zero")
	}
	if a.Has("--record-key-range") && p.RecordKeyRange <= 0 {
		bad("--record-key-range should be greater than zero")
	}
	switch {
	case p.Producers < 1:
		bad("--producers should be at least 1")
	case p.Producers > MaxClients:
		bad("--producers %d: at most %d producer clients (each opens its own connections to every broker); run several kbench processes for more", p.Producers, MaxClients)
	}
	if a.Has("--partitions") && p.Partitions <= 0 {
		bad("--partitions should be greater than zero")
	}
	if a.Has("--replication-factor") && p.ReplicationFactor <= 0 {
		bad("--replication-factor should be greater than zero")
	}
	if p.LocalBrokers < 1 {
		bad("--local-brokers should be at least 1")
	}
	if a.Has("--local-kafka-version") && !p.Local {
		bad("--local-kafka-version needs --local")
	}
	if a.Has("--local-brokers") && !p.Local {
		bad("--local-brokers needs --local")
	}
	if p.Local && (p.BootstrapServer != "") {
		bad("--local starts its own cluster: drop --bootstrap-server")
	}
	return joinUsage(errs)
}

// joinUsage joins usage errors into one, one problem per line.
func joinUsage(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	msg := ""
	for i, e := range errs {
		if i > 0 {
			msg += "\n  "
		}
		msg += e.Error()
	}
	if len(errs) > 1 {
		msg = fmt.Sprintf("%d problems with the command line:\n  %s", len(errs), msg)
	}
	return userr.Errorf("%s: %s", ProducerTool, msg)
}

// WindowLine prints a progress line exactly as the Apache tool does.
// Latencies are in milliseconds.
func WindowLine(w io.Writer, records int64, elapsed time.Duration, bytes int64, avgMs, maxMs float64) {
	ms := elapsedMs(elapsed)
	fmt.Fprintf(w, "%d records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency.\n",
		records,
		javaFixed(1000.0*float64(records)/ms, 1),
		javaFixed(1000.0*float64(bytes)/ms/(1024.0*1024.0), 2),
		javaFixed(avgMs, 1),
		javaFixed(maxMs, 1))
}

// Percentiles are the four the Apache tool prints, in milliseconds.
type Percentiles struct{ P50, P95, P99, P999 int64 }

// TotalLine prints the final summary line exactly as the Apache tool does;
// steady selects its "steady state" variant.
func TotalLine(w io.Writer, records int64, steady bool, elapsed time.Duration, bytes int64, avgMs, maxMs float64, p Percentiles) {
	ms := elapsedMs(elapsed)
	label := ""
	if steady {
		label = " steady state"
	}
	fmt.Fprintf(w, "%d%s records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.\n",
		records, label,
		javaFixed(1000.0*float64(records)/ms, 6),
		javaFixed(1000.0*float64(bytes)/ms/(1024.0*1024.0), 2),
		javaFixed(avgMs, 2),
		javaFixed(maxMs, 2),
		p.P50, p.P95, p.P99, p.P999)
}

// elapsedMs is elapsed in milliseconds, at least 1 so a run too short to
// measure prints a large rate rather than Infinity.
func elapsedMs(d time.Duration) float64 {
	return max(float64(d)/float64(time.Millisecond), 1)
}
