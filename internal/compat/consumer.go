package compat

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/units"
	"github.com/kbench/kbench/internal/userr"
)

// ConsumerTool is the name the Apache tool reports itself as.
const ConsumerTool = "kafka-consumer-perf-test"

// ConsumerOptions are the options of every Apache ConsumerPerformance
// release since 2.x: --broker-list and --threads (removed in 4.0), --messages
// and --consumer.config (renamed in 4.2), then kbench's additions.
var ConsumerOptions = []Option{
	{Name: "--bootstrap-server", Kind: Value, Metavar: "SERVER", Help: "The server(s) to connect to; overrides bootstrap.servers. Required unless --broker-list or bootstrap.servers is given."},
	{Name: "--broker-list", Kind: Value, Metavar: "BROKER-LIST", Help: "The server(s) to connect to; ignored when --bootstrap-server is given (removed in Apache Kafka 4.0).", Deprecated: "--bootstrap-server"},
	{Name: "--topic", Kind: Value, Metavar: "TOPIC", Help: "The topic to consume from."},
	{Name: "--include", Kind: Value, Metavar: "REGEX", Help: "Regular expression of the topics to consume; it must match a whole topic name, as Java's Pattern does."},
	{Name: "--num-records", Kind: Value, Metavar: "COUNT", Help: "The number of records to consume."},
	{Name: "--messages", Kind: Value, Metavar: "COUNT", Help: "The number of records to consume.", Deprecated: "--num-records"},
	{Name: "--threads", Kind: Value, Metavar: "COUNT", Help: "Consumers to run in parallel, each its own client in the group (removed in Apache Kafka 4.0, where it did nothing). (default: 1)"},
	{Name: "--num-fetch-threads", Kind: Value, Metavar: "COUNT", Help: "Accepted for old scripts and ignored, as the Apache tool ignored it since 2.0."},
	{Name: "--fetch-size", Kind: Value, Metavar: "SIZE", Help: "The maximum amount of data to fetch from a single partition per request (max.partition.fetch.bytes). (default: 1048576)"},
	{Name: "--socket-buffer-size", Kind: Value, Metavar: "SIZE", Help: "The size of the tcp RECV size (receive.buffer.bytes; franz-go sizes socket buffers itself). (default: 2097152)"},
	{Name: "--group", Kind: Value, Metavar: "GID", Help: "The group id to consume on; overrides group.id. (default: perf-consumer-<random>)"},
	{Name: "--from-latest", Kind: Flag, Help: "If the consumer does not already have an established offset to consume from, start with the latest record present in the log rather than the earliest record."},
	{Name: "--timeout", Kind: OptionalValue, Metavar: "MILLISECONDS", Help: "The maximum allowed time in milliseconds between returned records. (default: 10000)"},
	{Name: "--show-detailed-stats", Kind: Flag, Help: "If set, stats are reported for each reporting interval as configured by reporting-interval."},
	{Name: "--reporting-interval", Kind: Value, Metavar: "INTERVAL-MS", Help: "Interval in milliseconds at which to print progress info. (default: 5000)"},
	{Name: "--hide-header", Kind: Flag, Help: "If set, skips printing the header for the stats."},
	{Name: "--date-format", Kind: Value, Metavar: "DATE-FORMAT", Help: "The date format to use for formatting the time field. See java.text.SimpleDateFormat for options. (default: yyyy-MM-dd HH:mm:ss:SSS)"},
	{Name: "--print-metrics", Kind: Flag, Help: "Print out the metrics kbench measured, in the Apache tool's table."},
	{Name: "--consumer.config", Kind: Value, Metavar: "CONFIG-FILE", Help: "Consumer config properties file.", Deprecated: "--command-config"},
	{Name: "--command-config", Kind: Value, Metavar: "CONFIG-FILE", Help: "Config properties file."},
	{Name: "--command-property", Kind: List, Metavar: "PROP-NAME=PROP-VALUE", Help: "Consumer properties, Java client names; override --command-config."},
	{Name: "--help", Kind: Flag, Help: "Print usage information."},
	{Name: "--version", Kind: Flag, Help: "Display the kbench version."},
	{Name: "--json", Kind: Value, Metavar: "FILE", Help: "Write the result document (JSON: throughput, lag over time, end-to-end latency histogram) to FILE.", Kbench: true},
	{Name: "--duration", Kind: Value, Metavar: "DURATION", Help: "Stop after this long (e.g. 30s, 5m); --num-records becomes optional.", Kbench: true},
	{Name: "--assign", Kind: Flag, Help: "Assign the partitions directly (split between --threads) instead of joining a consumer group.", Kbench: true},
	{Name: "--metrics-addr", Kind: Value, Metavar: "HOST:PORT", Help: "Serve Prometheus metrics at HOST:PORT during the run, the names a plan serves (docs/metrics.md).", Kbench: true},
	{Name: "--metrics-hold", Kind: Value, Metavar: "DURATION", Help: "With --metrics-addr: keep serving this long after the run, for a last scrape.", Kbench: true},
	{Name: "--strict", Kind: Flag, Help: "Exit with status 1 when --timeout ends the run before --num-records were consumed (without it kbench exits 0, as the Apache tool does, and says the shortfall on stderr).", Kbench: true},
}

// ConsumerUsage is the synopsis printed by --help.
const ConsumerUsage = "kbench consumer-perf-test (--topic TOPIC | --include REGEX) (--num-records N | --duration D) " +
	"(--bootstrap-server HOST:PORT | --command-property bootstrap.servers=HOST:PORT) [options]"

// Consumer defaults of the Apache tool.
const (
	DefaultConsumerTimeout = 10000 * time.Millisecond
	DefaultFetchSize       = 1024 * 1024
	DefaultSocketBuffer    = 2 * 1024 * 1024
	DefaultDateFormat      = "yyyy-MM-dd HH:mm:ss:SSS"
)

// ConsumerArgs is a validated consumer-perf-test command line.
type ConsumerArgs struct {
	BootstrapServer string // --bootstrap-server, else --broker-list
	Topic           string
	Include         *regexp.Regexp // --include, anchored to match whole names
	NumRecords      int64          // 0 with Duration: until the duration ends
	Threads         int
	FetchSize       int
	// SocketBufferSize is set only when given: franz-go does not apply it,
	// so kbench passes it on (and warns) only when the user asked for it.
	SocketBufferSize  int
	Group             string // "" with Assign; else --group or a random perf-consumer-N
	GroupGiven        bool
	FromLatest        bool
	Timeout           time.Duration
	ShowDetailedStats bool
	ReportingInterval time.Duration
	HideHeader        bool
	DateFormat        *DateFormat
	PrintMetrics      bool
	PropFiles         []string
	PropPairs         []PropPair
	Help, Version     bool
	JSONPath          string
	Metrics           MetricsArgs
	Duration          time.Duration
	Assign            bool
	// Strict makes a run --timeout ended short exit 1; the Apache tool
	// exits 0.
	Strict bool
	// Warnings are the lines the Apache tool prints on stdout for renamed
	// options, printed the same way so the output stays comparable.
	Warnings []string
	// Notes are kbench's own remarks, for stderr.
	Notes []string
}

// javaWarnings are the renamed options Apache Kafka 4.2+ warns about on
// stdout; other deprecated options get a kbench note on stderr.
var javaWarnings = map[string]string{
	"--messages":        "Warning: --messages is deprecated. Use --num-records instead.",
	"--consumer.config": "Warning: --consumer.config is deprecated. Use --command-config instead.",
}

// ParseConsumerArgs parses and validates a consumer-perf-test command line
// with the Apache tool's rules, plus kbench's for its own options. random
// picks the default group's number, as Java's Random.nextInt(100000).
func ParseConsumerArgs(args []string, random func(n int) int) (*ConsumerArgs, error) {
	a, err := Parse(ConsumerTool, ConsumerOptions, args, false)
	if err != nil {
		return nil, err
	}
	c := &ConsumerArgs{Help: a.Has("--help"), Version: a.Has("--version")}
	if c.Help || c.Version {
		return c, nil
	}
	for _, o := range []string{"--messages", "--consumer.config"} {
		if a.Has(o) {
			c.Warnings = append(c.Warnings, javaWarnings[o])
		}
	}
	for _, n := range a.Notes {
		if !strings.HasPrefix(n, "--messages ") && !strings.HasPrefix(n, "--consumer.config ") {
			c.Notes = append(c.Notes, n)
		}
	}
	var errs []error
	num := func(name string, def int64) int64 {
		v, err := a.Int64(name, def)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	c.BootstrapServer = a.String("--bootstrap-server")
	if c.BootstrapServer == "" {
		c.BootstrapServer = a.String("--broker-list")
	}
	c.Topic = a.String("--topic")
	c.NumRecords = num("--num-records", 0)
	if a.Has("--messages") {
		c.NumRecords = num("--messages", 0)
	}
	c.Threads = int(num("--threads", 1))
	if a.Has("--num-fetch-threads") {
		num("--num-fetch-threads", 1) // validated as Java does, then ignored
		c.Notes = append(c.Notes, "--num-fetch-threads has had no effect since Apache Kafka 2.0; ignored")
	}
	c.FetchSize = int(num("--fetch-size", DefaultFetchSize))
	if a.Has("--socket-buffer-size") {
		c.SocketBufferSize = int(num("--socket-buffer-size", DefaultSocketBuffer))
	}
	c.GroupGiven = a.Has("--group")
	c.Group = a.String("--group")
	c.FromLatest = a.Has("--from-latest")
	c.Timeout = DefaultConsumerTimeout
	if t := a.String("--timeout"); t != "" { // jopt-simple: a bare --timeout keeps the default
		c.Timeout = time.Duration(num("--timeout", 0)) * time.Millisecond
	}
	c.ShowDetailedStats = a.Has("--show-detailed-stats")
	c.ReportingInterval = reportingInterval(a, &errs)
	c.HideHeader = a.Has("--hide-header")
	c.PrintMetrics = a.Has("--print-metrics")
	format := DefaultDateFormat
	if a.Has("--date-format") {
		format = a.String("--date-format")
	}
	if c.DateFormat, err = NewDateFormat(format); err != nil {
		errs = append(errs, userr.Errorf("option --date-format: %v", err))
	}
	for _, opt := range []string{"--consumer.config", "--command-config"} {
		if a.Has(opt) {
			c.PropFiles = append(c.PropFiles, a.String(opt))
		}
	}
	for _, item := range a.List("--command-property") {
		c.PropPairs = append(c.PropPairs, PropPair{Item: item, Option: "--command-property"})
	}
	c.JSONPath = jsonPath(a, &errs)
	c.Metrics = metricsArgs(a, &errs)
	c.Assign = a.Has("--assign")
	c.Strict = a.Has("--strict")
	if a.Has("--duration") {
		d, err := units.ParseDuration(a.String("--duration"))
		switch {
		case errors.Is(err, units.ErrTooLong):
			errs = append(errs, userr.Errorf("option --duration: %v", err))
		case err != nil:
			errs = append(errs, userr.Errorf("option --duration: %q is not a positive duration; use forms like 30s, 5m, 1h30m", a.String("--duration")))
		}
		c.Duration = d
	}
	if a.Has("--include") {
		c.Include, err = includeRegexp(a.String("--include"))
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, consumerUsage(errs)
	}
	if err := c.validate(a); err != nil {
		return nil, err
	}
	if !c.Assign && !c.GroupGiven {
		c.Group = "perf-consumer-" + strconv.Itoa(random(100000))
	}
	return c, nil
}

// reportingInterval applies the Apache tool's rule: digits only, above 0.
func reportingInterval(a *Args, errs *[]error) time.Duration {
	if !a.Has("--reporting-interval") {
		return 5000 * time.Millisecond
	}
	v := a.String("--reporting-interval")
	ms, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil || strings.TrimLeft(v, "0123456789") != "":
		*errs = append(*errs, userr.Errorf("option --reporting-interval: %q is not a whole number of milliseconds", v))
	case ms <= 0:
		*errs = append(*errs, userr.Errorf("Reporting interval must be greater than 0."))
	}
	return time.Duration(ms) * time.Millisecond
}

// includeRegexp compiles a Java topic pattern for Go. Java's subscribe
// matches whole topic names (Matcher.matches), where a Go regexp matches
// anywhere, hence the anchors.
func includeRegexp(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return nil, userr.Errorf("option --include: %q is not a regular expression kbench can use (Go RE2 syntax: no lookaround or backreferences): %v", pattern, err)
	}
	return re, nil
}

func (c *ConsumerArgs) validate(a *Args) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, userr.Errorf(format, args...)) }
	if (c.Topic == "") == (c.Include == nil) {
		bad("exactly one of --topic or --include is required")
	}
	if c.Topic != "" {
		if err := CheckTopic(c.Topic); err != nil {
			bad("--topic: %v", err)
		}
	}
	switch {
	case a.Has("--messages") && a.Has("--num-records"):
		bad("give --num-records or --messages (its old name), not both")
	case !a.Has("--messages") && !a.Has("--num-records") && c.Duration == 0:
		bad("argument --num-records is required (or --messages, its old name, or kbench's --duration)")
	case (a.Has("--messages") || a.Has("--num-records")) && c.NumRecords <= 0:
		bad("--num-records should be greater than zero")
	}
	if a.Has("--consumer.config") && a.Has("--command-config") {
		bad("option --consumer.config can't be used with option --command-config (it is its old name)")
	}
	switch {
	case c.Threads < 1:
		bad("--threads should be at least 1")
	case c.Threads > MaxClients:
		bad("--threads %d: at most %d consumers (each is its own client with its own connections to every broker); run several kbench processes for more", c.Threads, MaxClients)
	}
	if c.FetchSize <= 0 {
		bad("--fetch-size should be greater than zero")
	}
	if a.Has("--socket-buffer-size") && c.SocketBufferSize <= 0 {
		bad("--socket-buffer-size should be greater than zero")
	}
	if c.Timeout < 0 {
		bad("--timeout should not be negative")
	}
	if c.Assign && c.GroupGiven {
		bad("--assign consumes without a group: drop --group")
	}
	if a.Has("--group") && c.Group == "" {
		bad("--group should not be empty")
	}
	return consumerUsage(errs)
}

// consumerUsage joins usage errors into one, one problem per line.
func consumerUsage(errs []error) error { return toolUsage(ConsumerTool, errs) }

// toolUsage joins a tool's usage errors into one, one problem per line.
func toolUsage(tool string, errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return userr.Errorf("%s: %v", tool, errs[0])
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return userr.Errorf("%s: %d problems with the command line:\n  %s", tool, len(errs), strings.Join(lines, "\n  "))
}
