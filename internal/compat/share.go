package compat

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

// ShareConsumerTool is the name the Apache share consumer tool goes by.
const ShareConsumerTool = "kafka-share-consumer-perf-test"

// ShareMetricsNote is what --print-metrics prints (on stderr) instead of
// the Java client's metrics table, and what its help says it prints: the
// help promised the Apache tool's table.
const ShareMetricsNote = "kbench's share consumer keeps no client metrics table yet; the JSON result (--json) has deliveries, redeliveries and end-to-end latency"

// ShareConsumerOptions are the options of Apache Kafka's
// ShareConsumerPerformance (4.1+; --messages and --consumer.config renamed
// in 4.2), then kbench's additions.
var ShareConsumerOptions = []Option{
	{Name: "--bootstrap-server", Kind: Value, Metavar: "SERVER", Help: "REQUIRED. The server(s) to connect to."},
	{Name: "--topic", Kind: Value, Metavar: "TOPIC", Help: "REQUIRED: The topic to consume from."},
	{Name: "--group", Kind: Value, Metavar: "GID", Help: "The share group id to consume on. (default: perf-share-consumer)"},
	{Name: "--num-records", Kind: Value, Metavar: "COUNT", Help: "REQUIRED: The number of records to consume."},
	{Name: "--messages", Kind: Value, Metavar: "COUNT", Help: "The number of records to consume.", Deprecated: "--num-records"},
	{Name: "--threads", Kind: Value, Metavar: "COUNT", Help: "The number of share consumers to use for sharing the load. (default: 1)"},
	{Name: "--timeout", Kind: OptionalValue, Metavar: "MILLISECONDS", Help: "The maximum allowed time in milliseconds between returned records. (default: 10000)"},
	{Name: "--fetch-size", Kind: Value, Metavar: "SIZE", Help: "The amount of data to fetch in a single request (fetch.max.bytes). (default: 1048576)"},
	{Name: "--socket-buffer-size", Kind: Value, Metavar: "SIZE", Help: "The size of the tcp RECV size (receive.buffer.bytes; franz-go sizes socket buffers itself). (default: 2097152)"},
	{Name: "--reporting-interval", Kind: Value, Metavar: "INTERVAL-MS", Help: "Interval in milliseconds at which to print progress info. (default: 5000)"},
	{Name: "--show-detailed-stats", Kind: Flag, Help: "If set, stats are reported for each reporting interval as configured by reporting-interval."},
	{Name: "--show-consumer-stats", Kind: Flag, Help: "If set, stats are reported for each share consumer depending on the no. of threads."},
	{Name: "--hide-header", Kind: Flag, Help: "If set, skips printing the header for the stats."},
	{Name: "--date-format", Kind: Value, Metavar: "DATE-FORMAT", Help: "The date format to use for formatting the time field. See java.text.SimpleDateFormat for options. (default: yyyy-MM-dd HH:mm:ss:SSS)"},
	{Name: "--print-metrics", Kind: Flag, Help: "Print a note on stderr: " + ShareMetricsNote + " (the Apache tool prints the Java client's metrics table)."},
	{Name: "--consumer.config", Kind: Value, Metavar: "CONFIG-FILE", Help: "Share consumer config properties file.", Deprecated: "--command-config"},
	{Name: "--command-config", Kind: Value, Metavar: "CONFIG-FILE", Help: "Config properties file."},
	{Name: "--command-property", Kind: List, Metavar: "PROP-NAME=PROP-VALUE", Help: "Share consumer properties, Java client names; override --command-config."},
	{Name: "--help", Kind: Flag, Help: "Print usage information."},
	{Name: "--version", Kind: Flag, Help: "Display the kbench version."},
	{Name: "--json", Kind: Value, Metavar: "FILE", Help: "Write the result document (JSON: throughput, deliveries and redeliveries, end-to-end latency histogram) to FILE.", Kbench: true},
}

// ShareConsumerUsage is the synopsis printed by --help.
const ShareConsumerUsage = "kbench share-consumer-perf-test --topic TOPIC --num-records N --bootstrap-server HOST:PORT [options]"

// DefaultShareGroup is the Apache tool's default share group.
const DefaultShareGroup = "perf-share-consumer"

// ShareConsumerArgs is a validated share-consumer-perf-test command line.
type ShareConsumerArgs struct {
	BootstrapServer   string
	Topic             string
	Group             string
	GroupGiven        bool
	NumRecords        int64
	Threads           int
	Timeout           time.Duration
	FetchSize         int
	SocketBufferSize  int // set only when given
	ReportingInterval time.Duration
	ShowDetailedStats bool
	ShowConsumerStats bool
	HideHeader        bool
	DateFormat        *DateFormat
	PrintMetrics      bool
	PropFiles         []string
	PropPairs         []PropPair
	Help, Version     bool
	JSONPath          string
	Warnings          []string // the Apache tool's stdout lines for renamed options
	Notes             []string // kbench's, for stderr
}

// ParseShareConsumerArgs parses and validates a share-consumer-perf-test
// command line with the Apache tool's rules.
func ParseShareConsumerArgs(args []string) (*ShareConsumerArgs, error) {
	a, err := Parse(ShareConsumerTool, ShareConsumerOptions, args, false)
	if err != nil {
		return nil, err
	}
	c := &ShareConsumerArgs{Help: a.Has("--help"), Version: a.Has("--version")}
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
	bad := func(format string, args ...any) { errs = append(errs, userr.Errorf(format, args...)) }
	// unparsed are the options whose value is no number: their error is
	// said once, not followed by a range check of the 0 left in its place
	// ("too large" and then "should be greater than zero").
	unparsed := map[string]bool{}
	num := func(name string, def int64) int64 {
		v, err := a.Int64(name, def)
		if err != nil {
			errs = append(errs, err)
			unparsed[name] = true
		}
		return v
	}
	c.BootstrapServer = a.String("--bootstrap-server")
	c.Topic = a.String("--topic")
	c.GroupGiven = a.Has("--group")
	c.Group = DefaultShareGroup
	if c.GroupGiven {
		c.Group = a.String("--group")
	}
	c.NumRecords = num("--num-records", 0)
	if a.Has("--messages") {
		c.NumRecords = num("--messages", 0)
	}
	c.Threads = int(num("--threads", 1))
	c.Timeout = DefaultConsumerTimeout
	if t := a.String("--timeout"); t != "" {
		c.Timeout = time.Duration(num("--timeout", 0)) * time.Millisecond
	}
	c.FetchSize = int(num("--fetch-size", DefaultFetchSize))
	if a.Has("--socket-buffer-size") {
		c.SocketBufferSize = int(num("--socket-buffer-size", DefaultSocketBuffer))
	}
	c.ReportingInterval = reportingInterval(a, &errs)
	c.ShowDetailedStats = a.Has("--show-detailed-stats")
	c.ShowConsumerStats = a.Has("--show-consumer-stats")
	c.HideHeader = a.Has("--hide-header")
	c.PrintMetrics = a.Has("--print-metrics")
	format := DefaultDateFormat
	if a.Has("--date-format") {
		format = a.String("--date-format")
	}
	if c.DateFormat, err = NewDateFormat(format); err != nil {
		bad("option --date-format: %v", err)
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

	switch {
	case c.Topic == "":
		bad("Missing required argument \"[topic]\"")
	default:
		if err := CheckTopic(c.Topic); err != nil {
			bad("--topic: %v", err)
		}
	}
	switch {
	case a.Has("--messages") && a.Has("--num-records"):
		bad("give --num-records or --messages (its old name), not both")
	case !a.Has("--messages") && !a.Has("--num-records"):
		bad("argument --num-records is required (or --messages, its old name)")
	case unparsed["--num-records"] || unparsed["--messages"]:
	case c.NumRecords <= 0:
		bad("--num-records should be greater than zero")
	}
	if a.Has("--consumer.config") && a.Has("--command-config") {
		bad("option --consumer.config can't be used with option --command-config (it is its old name)")
	}
	switch {
	case unparsed["--threads"]:
	case c.Threads < 1:
		bad("--threads should be at least 1")
	case c.Threads > MaxClients:
		bad("--threads %d: at most %d share consumers (each is its own client); run several kbench processes for more", c.Threads, MaxClients)
	}
	if c.FetchSize <= 0 && !unparsed["--fetch-size"] {
		bad("--fetch-size should be greater than zero")
	}
	if a.Has("--socket-buffer-size") && c.SocketBufferSize <= 0 && !unparsed["--socket-buffer-size"] {
		bad("--socket-buffer-size should be greater than zero")
	}
	if c.Timeout < 0 && !unparsed["--timeout"] {
		bad("--timeout should not be negative")
	}
	if c.GroupGiven && c.Group == "" {
		bad("--group should not be empty")
	}
	if err := toolUsage(ShareConsumerTool, errs); err != nil {
		return nil, err
	}
	return c, nil
}

// The share consumer tool's lines, with its arithmetic (whole milliseconds,
// doubles in the same order) and Java's HALF_UP rounding.

// ShareConsumerHeader prints the tool's header: its columns are in another
// order than the consumer tool's, kept exactly.
func ShareConsumerHeader(w io.Writer) {
	fmt.Fprintln(w, "start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms")
}

// ShareConsumerStats prints the summary of the share group (consumer 0) or
// of share consumer n (1-based) with its client id: elapsed and fetch
// time are the same, the whole run.
func ShareConsumerStats(w io.Writer, df *DateFormat, consumer int, clientID string, startMs, endMs, bytes, records int64) {
	elapsedSec := float64(endMs-startMs) / 1000.0
	mb := float64(bytes) * 1.0 / (1024 * 1024)
	line := fmt.Sprintf("%s, %s, %s, %s, %s, %d, %d",
		df.FormatMillis(startMs), df.FormatMillis(endMs),
		javaFixed(mb, 4), javaFixed(mb/elapsedSec, 4), javaFixed(float64(records)/elapsedSec, 4),
		records, endMs-startMs)
	if consumer > 0 {
		line = fmt.Sprintf("Share consumer %d having client id %s consumption metrics- %s", consumer, clientID, line)
	}
	fmt.Fprintln(w, line)
}

// ShareClientID is share consumer n's (1-based) client id: the
// configured one with -n, as the Apache tool (4.3) names its consumers.
func ShareClientID(clientID string, n int) string { return fmt.Sprintf("%s-%d", clientID, n) }

// ShareConsumerProgress is one consumer's --show-detailed-stats line:
// its totals now and at its previous line.
type ShareConsumerProgress struct {
	Consumer             int // 1-based
	StartMs, EndMs       int64
	Bytes, LastBytes     int64
	Records, LastRecords int64
}

// ShareConsumerProgressLine prints one --show-detailed-stats line.
func ShareConsumerProgressLine(w io.Writer, df *DateFormat, p ShareConsumerProgress) {
	elapsedMs := float64(p.EndMs - p.StartMs)
	totalMb := float64(p.Bytes) * 1.0 / (1024 * 1024)
	intervalMb := float64(p.Bytes-p.LastBytes) * 1.0 / (1024 * 1024)
	fmt.Fprintf(w, "%s, %s, %s, %s, %s, %d, %d for share consumer %d\n",
		df.FormatMillis(p.StartMs), df.FormatMillis(p.EndMs),
		javaFixed(totalMb, 4), javaFixed(1000.0*intervalMb/elapsedMs, 4),
		javaFixed((float64(p.Records-p.LastRecords)/elapsedMs)*1000.0, 4),
		p.Records, p.EndMs-p.StartMs, p.Consumer)
}
