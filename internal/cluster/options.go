package cluster

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Defaults, exported so the CLI shows them in --help without restating them.
const (
	DefaultVersion      = "4.3.1"          // Apache Kafka version
	DefaultName         = "kbench"         // cluster name
	DefaultHeap         = "1g"             // JVM heap per broker
	DefaultStartTimeout = 90 * time.Second // wait for brokers to answer
)

// MaxBrokers bounds WithBrokers: each node is a JVM with its own heap, and
// more than a few on one machine measure the machine, not Kafka.
const MaxBrokers = 9

// Opt configures Start and Fetch.
type Opt func(*config)

type config struct {
	brokers      int
	name         string
	heap         string
	version      string
	cacheDir     string
	stateDir     string
	log          io.Writer
	props        map[string]string
	startTimeout time.Duration
	java         string
	maven        string
	stopOnExit   bool
	security     string
	mtls         bool
	portBase     int
	network      bool
	proxyCmd     []string
	registry     bool
	registryVer  string
	tiered       bool
	host         string
}

// defaultConfig states every default once.
func defaultConfig() config {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return config{
		brokers:      1,
		name:         DefaultName,
		heap:         DefaultHeap,
		version:      DefaultVersion,
		cacheDir:     filepath.Join(cache, "kbench"),
		log:          io.Discard,
		props:        map[string]string{},
		startTimeout: DefaultStartTimeout,
		java:         "java",
		maven:        "mvn",
		registryVer:  DefaultRegistryVersion,
	}
}

// WithBrokers sets the number of nodes, 1 to MaxBrokers (default 1). Each
// node is both broker and controller, so 3 nodes tolerate one failure.
func WithBrokers(n int) Opt { return func(c *config) { c.brokers = n } }

// WithName names the cluster (default DefaultName); the name is a directory
// under the state dir, so several clusters can run side by side.
func WithName(name string) Opt { return func(c *config) { c.name = name } }

// WithHeap sets each broker's JVM heap in Java's syntax, like "512m" or
// "1g" (default DefaultHeap, at least MinHeap).
func WithHeap(heap string) Opt { return func(c *config) { c.heap = heap } }

// WithVersion sets the Apache Kafka version (default DefaultVersion). Only
// 4.x is supported: older versions log through log4j 1.
func WithVersion(v string) Opt { return func(c *config) { c.version = v } }

// WithCacheDir sets where jars are kept, under kafka/<version>/ (default
// kbench/ in the user's cache directory).
func WithCacheDir(dir string) Opt { return func(c *config) { c.cacheDir = dir } }

// WithStateDir sets where clusters' state and data live, one directory per
// name (default clusters/ in the cache dir).
func WithStateDir(dir string) Opt { return func(c *config) { c.stateDir = dir } }

// WithLog receives one progress line per step (default discarded).
func WithLog(w io.Writer) Opt { return func(c *config) { c.log = w } }

// WithBrokerProps adds broker properties, over kbench's defaults. The
// properties that wire nodes together (listeners, node.id, ...) are
// reserved and rejected.
func WithBrokerProps(props map[string]string) Opt {
	return func(c *config) {
		for k, v := range props {
			c.props[k] = v
		}
	}
}

// WithStartTimeout bounds how long Start and Restart wait for brokers to
// answer metadata, and Start then for group and transaction coordinators
// (default DefaultStartTimeout).
func WithStartTimeout(d time.Duration) Opt { return func(c *config) { c.startTimeout = d } }

// WithJava sets the java command (default "java" on PATH).
func WithJava(path string) Opt { return func(c *config) { c.java = path } }

// WithMaven sets the mvn command (default "mvn" on PATH).
func WithMaven(path string) Opt { return func(c *config) { c.maven = path } }

// WithStopOnExit kills the brokers when the process that started them exits
// (Linux only), so a test binary that dies on a timeout leaves none behind.
func WithStopOnExit(on bool) Opt { return func(c *config) { c.stopOnExit = on } }

// WithSecurity secures the client listener: SecuritySASLSSL (TLS with
// SCRAM and PLAIN users) or SecuritySSL (mutual TLS). A generated CA,
// certificates, users and a ready client properties file are written into
// the cluster's directory (Cluster.Secrets).
func WithSecurity(mode string) Opt { return func(c *config) { c.security = strings.ToLower(mode) } }

// WithMutualTLSListener gives a SecuritySASLSSL cluster's brokers a second
// client listener, mutual TLS (Broker.MTLSPort, Cluster.MTLSBootstrap),
// with the same CA and the client certificates every secured cluster
// writes: one broker serves both kinds of client (tests of both modes
// start one JVM). Free ports only: not with WithPortBase or network faults.
func WithMutualTLSListener() Opt { return func(c *config) { c.mtls = true } }

// WithPortBase fixes the ports instead of picking free ones (default 0:
// free ports): broker N's client port is base+N-1, its controller port
// base+10+N-1, and on a secured cluster its internal listener base+20+N-1.
// A bootstrap written down once (in a plan, a script) then stays right
// from one `cluster up` to the next. base is 1024 to 65506.
func WithPortBase(base int) Opt { return func(c *config) { c.portBase = base } }

// WithNetworkFaults runs every connection of the cluster through proxies
// kbench owns (Toxiproxy's), one per path: the clients to each broker, each
// node to every other node's replication and controller listeners. Faults
// are then set per path with Link. The proxies run in a process of their
// own, started with WithProxyCommand, that lives as long as the cluster.
// Linux only: the proxies listen on 127.1.0.N, which macOS does not route
// to its loopback interface without aliases.
func WithNetworkFaults(on bool) Opt { return func(c *config) { c.network = on } }

// WithProxyCommand is the command that serves a network-faults cluster's
// proxies: kbench's own `cluster proxies` command (the cluster's proxy
// config file is appended), which calls ServeProxies.
func WithProxyCommand(argv ...string) Opt {
	return func(c *config) { c.proxyCmd = append([]string(nil), argv...) }
}

// WithSchemaRegistry starts a schema registry beside the brokers:
// Apicurio Registry (DefaultRegistryVersion, fetched once with mvn like
// Kafka), in memory, on 127.0.0.1; Cluster.RegistryURL is its
// schema.registry.url. It needs the same Java 17 as the brokers.
func WithSchemaRegistry(on bool) Opt { return func(c *config) { c.registry = on } }

// WithHost puts the client listener on host (an IP address or a name
// this machine answers to) instead of 127.0.0.1, advertised as such, so
// that clients on other machines or network namespaces reach the
// brokers. The controller quorum, a secured cluster's internal listener,
// the metrics agents and the schema registry stay on loopback. Not with
// network faults: their proxies are loopback addresses.
func WithHost(host string) Opt { return func(c *config) { c.host = host } }

// OptionError is an invalid option value. Option is the option's name as
// the CLI spells its flag ("brokers", "heap", ...).
type OptionError struct {
	Option string
	Value  string
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Option, e.Value, e.Reason)
}

// Check checks opts as Start does first, starting nothing: a caller can
// refuse a bad option before it says it starts a cluster.
func Check(opts ...Opt) error {
	_, err := newConfig(opts)
	return err
}

func newConfig(opts []Opt) (config, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.stateDir == "" {
		cfg.stateDir = filepath.Join(cfg.cacheDir, "clusters")
	}
	if cfg.log == nil {
		cfg.log = io.Discard
	}
	return cfg, cfg.validate()
}

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+([.-][A-Za-z0-9]+)*$`)

// maxNameLen bounds a cluster name.
const maxNameLen = 64

// CheckName says what is wrong with a cluster name, if anything. A name is
// a folder under the state dir: letters, digits, '.', '_' and '-', at most
// 64, starting with a letter or digit.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("is empty; give a name such as kbench or test-3")
	case name == "." || name == "..":
		return fmt.Errorf("%q is not allowed: it names the %s folder, not a folder of its own; use letters, digits, '.', '_' or '-', starting with a letter or digit",
			name, map[string]string{".": "current", "..": "parent"}[name])
	case len(name) > maxNameLen:
		return fmt.Errorf("is %d characters long; at most %d", len(name), maxNameLen)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		switch {
		case ok:
			continue
		case r == '/' || r == '\\':
			return fmt.Errorf("%q is not allowed: it separates folders, and the name is one folder; use letters, digits, '.', '_' or '-'", r)
		case (r == '.' || r == '_' || r == '-') && i > 0:
			continue
		case r == '.' || r == '_' || r == '-':
			return fmt.Errorf("must start with a letter or digit, not %q (a leading '.' hides the folder, a leading '-' reads as a flag)", r)
		}
		return fmt.Errorf("%q is not allowed; use letters, digits, '.', '_' or '-'", r)
	}
	return nil
}

// reservedProps wire the nodes together; changing them breaks start-up.
var reservedProps = []string{
	"process.roles", "node.id", "controller.quorum.voters",
	"controller.quorum.bootstrap.servers", "listeners", "advertised.listeners",
	"listener.security.protocol.map", "controller.listener.names",
	"inter.broker.listener.name", "log.dirs", "log.dir",
}

func (c *config) validate() error {
	if c.brokers < 1 || c.brokers > MaxBrokers {
		return &OptionError{"brokers", strconv.Itoa(c.brokers),
			fmt.Sprintf("must be between 1 and %d (1 or 3 are typical)", MaxBrokers)}
	}
	if err := CheckName(c.name); err != nil {
		return &OptionError{"name", c.name, err.Error()}
	}
	if _, err := parseHeap(c.heap); err != nil {
		return &OptionError{"heap", c.heap, err.Error()}
	}
	if !versionRE.MatchString(c.version) || !strings.HasPrefix(c.version, "4.") {
		return &OptionError{"kafka-version", c.version, "only Apache Kafka 4.x versions like 4.1.2 are supported"}
	}
	for _, k := range reservedProps {
		if _, ok := c.props[k]; ok {
			return &OptionError{"broker property", k, "is set by kbench to wire the nodes together"}
		}
	}
	if c.security != SecurityNone && c.security != SecuritySASLSSL && c.security != SecuritySSL {
		return &OptionError{"security", c.security, "use sasl_ssl (TLS with SCRAM and PLAIN users) or ssl (mutual TLS)"}
	}
	if c.mtls && (c.security != SecuritySASLSSL || c.portBase != 0 || c.network) {
		return &OptionError{"mtls-listener", "true", "needs --security sasl_ssl, free ports and no network faults"}
	}
	if c.portBase != 0 && (c.portBase < minPortBase || c.portBase > maxPortBase) {
		return &OptionError{"port-base", strconv.Itoa(c.portBase),
			fmt.Sprintf("must be between %d and %d: the cluster takes the %d ports from it (clients from it, controllers from +10, a secured cluster's internal listeners from +20)", minPortBase, maxPortBase, portsPerBase)}
	}
	if c.network && c.portBase > maxNetworkPortBase {
		return &OptionError{"port-base", strconv.Itoa(c.portBase),
			fmt.Sprintf("must be at most %d with network faults: the cluster takes %d ports from it (clients' proxies from it, controllers from +10, internal listeners from +20, the brokers' own client listeners from +30, the proxies' API at +9)", maxNetworkPortBase, networkPortsPerBase)}
	}
	if c.network && len(c.proxyCmd) == 0 {
		return &OptionError{"network-faults", "true", "no command to run the proxies with (WithProxyCommand)"}
	}
	if err := checkHost(c.host, c.network); err != nil {
		return &OptionError{"advertise-host", c.host, err.Error()}
	}
	if c.startTimeout <= 0 {
		return &OptionError{"timeout", c.startTimeout.String(), "must be positive"}
	}
	if c.cacheDir == "" {
		return &OptionError{"cache-dir", "", "must not be empty"}
	}
	return nil
}

// MinHeap is the smallest heap WithHeap accepts, in Java's syntax. A
// 1-broker Kafka 4.1 cluster died of OutOfMemoryError while starting with
// 128m and 160m, and started and took a 300 MB produce-and-consume run with
// 192m; 256m keeps a margin for more partitions and clients.
const MinHeap = "256m"

// minHeapBytes is MinHeap in bytes.
const minHeapBytes = 256 << 20

// parseHeap reads a JVM heap size with a k, m or g suffix into bytes.
func parseHeap(s string) (int64, error) {
	if len(s) < 2 || s[0] < '0' || s[0] > '9' {
		return 0, fmt.Errorf("want a size like 512m or 1g")
	}
	unit := map[byte]int64{'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30}[s[len(s)-1]|0x20]
	n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
	if unit == 0 || err != nil || n <= 0 {
		return 0, fmt.Errorf("want a size like 512m or 1g")
	}
	if n > (1<<62)/unit {
		return 0, fmt.Errorf("too large")
	}
	if n*unit < minHeapBytes {
		return 0, fmt.Errorf("at least %s: with less a broker dies of OutOfMemoryError (1g is the default)", MinHeap)
	}
	return n * unit, nil
}

// hostRE is a host name: letters, digits, '-' and '.'.
var hostRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)

// checkHost says what is wrong with a client listener host, if anything
// ("" is the default, 127.0.0.1).
func checkHost(host string, network bool) error {
	if host == "" {
		return nil
	}
	if network {
		return errors.New("not with --network-faults: its proxies listen on loopback addresses, which other hosts cannot reach")
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsUnspecified() {
			return errors.New("is every address, which no client can connect to; give the address clients reach this machine at")
		}
		return nil
	}
	if !hostRE.MatchString(host) {
		return errors.New("want an IP address or a host name, such as 10.0.0.5 or kafka1.example.com")
	}
	return nil
}
