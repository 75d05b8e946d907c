package compat

import (
	"math"
	"strings"

	"github.com/kbench/kbench/internal/userr"
)

// E2ETool is the name of the Apache end-to-end latency tool.
const E2ETool = "kafka-e2e-latency"

// E2EOptions are the named options of KIP-1172 (Apache Kafka 4.2+), then
// kbench's additions. The positional form of earlier releases is converted
// to them (see ParseE2EArgs).
var E2EOptions = []Option{
	{Name: "--bootstrap-server", Kind: Value, Metavar: "BOOTSTRAP-SERVER", Help: "REQUIRED: The Kafka broker list string in the form HOST1:PORT1,HOST2:PORT2."},
	{Name: "--topic", Kind: Value, Metavar: "TOPIC-NAME", Help: "REQUIRED: The topic to use for the test; created with 1 partition if missing."},
	{Name: "--num-records", Kind: Value, Metavar: "COUNT", Help: "REQUIRED: The number of messages to send."},
	{Name: "--producer-acks", Kind: Value, Metavar: "PRODUCER-ACKS", Help: "REQUIRED: Producer acknowledgements. Must be '1' or 'all'."},
	{Name: "--record-size", Kind: Value, Metavar: "BYTES", Help: "REQUIRED: The size of each message payload in bytes."},
	{Name: "--record-key-size", Kind: OptionalValue, Metavar: "BYTES", Help: "Optional: The size of the message key in bytes. If not set, messages are sent without a key. (default: 0)"},
	{Name: "--num-headers", Kind: OptionalValue, Metavar: "COUNT", Help: "Optional: The number of headers to include in each message. (default: 0)"},
	{Name: "--record-header-key-size", Kind: OptionalValue, Metavar: "BYTES", Help: "Optional: The size of the message header key in bytes. Used together with record-header-size. (default: 0)"},
	{Name: "--record-header-size", Kind: OptionalValue, Metavar: "BYTES", Help: "Optional: The size of message header value in bytes. Use -1 for null header value. (default: 0)"},
	{Name: "--command-config", Kind: OptionalValue, Metavar: "CONFIG-FILE", Help: "Optional: A property file for Kafka producer/consumer/admin client configuration."},
	{Name: "--help", Kind: Flag, Help: "Print usage information."},
	{Name: "--version", Kind: Flag, Help: "Display the kbench version."},
	{Name: "--command-property", Kind: List, Metavar: "PROP-NAME=PROP-VALUE", Help: "Client properties (producer, consumer and admin), Java names; override --command-config.", Kbench: true},
	{Name: "--json", Kind: Value, Metavar: "FILE", Help: "Write the result document (JSON, latency percentiles in microseconds and the histogram) to FILE.", Kbench: true},
}

// E2EUsage is the synopsis printed by --help.
const E2EUsage = "kbench end-to-end-latency --bootstrap-server HOST:PORT --topic TOPIC --num-records N --producer-acks 1|all --record-size BYTES [options]\n" +
	"   or: kbench end-to-end-latency broker_list topic num_messages producer_acks message_size_bytes [properties_file]"

// E2EArgs is a validated end-to-end-latency command line.
type E2EArgs struct {
	BootstrapServer string
	Topic           string
	NumRecords      int
	Acks            string // "1" or "all"
	RecordSize      int
	KeySize         int // 0: no key
	NumHeaders      int
	HeaderKeySize   int
	HeaderSize      int // -1: null header values
	ConfigFile      string
	PropPairs       []PropPair
	JSONPath        string
	Positional      bool // given in the positional form of Apache Kafka up to 4.1
	Help, Version   bool
}

// positionalNames are the options the positional arguments stand for.
var positionalNames = []string{"--bootstrap-server", "--topic", "--num-records", "--producer-acks", "--record-size", "--command-config"}

// ParseE2EArgs parses either form: the positional arguments of Apache Kafka
// up to 4.1 (broker_list topic num_messages producer_acks message_size_bytes
// [properties_file]) or the named options of 4.2+. kbench's own options may
// follow the positional form.
func ParseE2EArgs(args []string) (*E2EArgs, error) {
	a, err := Parse(E2ETool, E2EOptions, args, true)
	if err != nil {
		return nil, err
	}
	e := &E2EArgs{Help: a.Has("--help"), Version: a.Has("--version")}
	if e.Help || e.Version {
		return e, nil
	}
	if len(a.Positional) > 0 {
		if err := a.fromPositional(); err != nil {
			return nil, err
		}
		e.Positional = true
	}
	var errs []error
	num := func(name string, def int64) int {
		if a.String(name) == "" { // jopt-simple: an optional value left out keeps the default
			return int(def)
		}
		v, err := a.Int64(name, def)
		if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
			err = userr.Errorf("option %s: %d is out of range for an Integer", name, v)
		}
		if err != nil {
			errs = append(errs, err)
		}
		return int(v)
	}
	for _, req := range positionalNames[:5] {
		if !a.Has(req) {
			errs = append(errs, userr.Errorf("Missing required argument \"[%s]\"", strings.TrimPrefix(req, "--")))
		}
	}
	e.BootstrapServer = a.String("--bootstrap-server")
	e.Topic = a.String("--topic")
	e.NumRecords = num("--num-records", 0)
	e.Acks = a.String("--producer-acks")
	e.RecordSize = num("--record-size", 0)
	e.KeySize = num("--record-key-size", 0)
	e.NumHeaders = num("--num-headers", 0)
	e.HeaderKeySize = num("--record-header-key-size", 0)
	e.HeaderSize = num("--record-header-size", 0)
	e.ConfigFile = strings.TrimSpace(a.String("--command-config"))
	for _, item := range a.List("--command-property") {
		e.PropPairs = append(e.PropPairs, PropPair{Item: item, Option: "--command-property"})
	}
	e.JSONPath = jsonPath(a, &errs)
	if len(errs) == 0 {
		errs = e.validate()
	}
	if len(errs) > 0 {
		return nil, e2eUsage(errs)
	}
	return e, nil
}

// fromPositional turns the positional form into the named options, as the
// Apache tool's convertLegacyArgs does. Only kbench's own options may be
// mixed with it.
func (a *Args) fromPositional() error {
	for name := range a.values {
		for _, o := range E2EOptions {
			if o.Name == name && !o.Kbench {
				return userr.Errorf("%s: positional arguments cannot be mixed with %s; use the named options only", E2ETool, name)
			}
		}
	}
	n := len(a.Positional)
	if n != 5 && n != 6 {
		return userr.Errorf("%s: Invalid number of arguments. Expected 5 or 6 positional arguments, but got %d. "+
			"Usage: bootstrap-server topic num-records producer-acks record-size [optional] command-config", E2ETool, n)
	}
	for i, v := range a.Positional {
		if i == 5 && strings.TrimSpace(v) == "" {
			continue // Java ignores a blank properties file argument
		}
		a.values[positionalNames[i]] = []string{v}
	}
	a.Positional = nil
	return nil
}

// validate applies the checks of the Apache tool, with its messages.
func (e *E2EArgs) validate() []error {
	var errs []error
	bad := func(msg string) { errs = append(errs, userr.Errorf("%s", msg)) }
	if err := CheckTopic(e.Topic); err != nil {
		bad("Invalid value for --topic: " + err.Error() + ".")
	}
	if e.Acks != "1" && e.Acks != "all" {
		bad("Invalid value for --producer-acks. Latency testing requires synchronous acknowledgement. Please use '1' or 'all'.")
	}
	if e.NumRecords <= 0 {
		bad("Value for --num-records must be a positive integer.")
	}
	if e.RecordSize < 0 {
		bad("Value for --record-size must be a non-negative integer.")
	}
	if e.KeySize < 0 {
		bad("Value for --record-key-size must be a non-negative integer.")
	}
	if e.HeaderKeySize < 0 {
		bad("Value for --record-header-key-size must be a non-negative integer.")
	}
	if e.HeaderSize < -1 {
		bad("Value for --record-header-size must be a non-negative integer or -1 for null header value.")
	}
	if e.NumHeaders < 0 {
		bad("Value for --num-headers must be a non-negative integer.")
	}
	return errs
}

func e2eUsage(errs []error) error {
	if len(errs) == 1 {
		return userr.Errorf("%s: %v", E2ETool, errs[0])
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return userr.Errorf("%s: %d problems with the command line:\n  %s", E2ETool, len(errs), strings.Join(lines, "\n  "))
}
