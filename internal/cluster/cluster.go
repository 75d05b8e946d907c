package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Cluster is a local Kafka cluster started by Start or found by Load. Its
// methods are safe for concurrent use; read Brokers directly only while no
// Restart runs (Restart changes a PID), or use Broker.
type Cluster struct {
	Name      string    `json:"name"`
	Version   string    `json:"version"`
	ID        string    `json:"cluster_id"`
	Dir       string    `json:"dir"` // <state dir>/<name>: state, configs, data, logs
	Heap      string    `json:"heap"`
	Java      string    `json:"java"`
	Classpath string    `json:"classpath"`
	StartedAt time.Time `json:"started_at"`
	Brokers   []Broker  `json:"brokers"`
	// Security is the client listener's protection ("" for PLAINTEXT);
	// Secrets says where its certificates and client properties are.
	Security string   `json:"security,omitempty"`
	Secrets  *Secrets `json:"secrets,omitempty"`
	// PortBase, when set, fixed the ports (WithPortBase): they stay the
	// same from one `cluster up` to the next.
	PortBase int `json:"port_base,omitempty"`
	// Network, on a network-faults cluster (WithNetworkFaults), is its
	// proxies: every connection between its processes goes through them.
	Network *Network `json:"network,omitempty"`
	// Registry, when the cluster has one (WithSchemaRegistry, AddRegistry),
	// is its schema registry.
	Registry *Registry `json:"schema_registry,omitempty"`
	// Agent is the Prometheus JMX exporter's java agent jar each broker
	// runs on its MetricsPort ("": a cluster started before kbench ran it).
	Agent string `json:"metrics_agent,omitempty"`
	// Tiered, on a tiered-storage cluster (WithTieredStorage), is its
	// remote tier.
	Tiered *Tiered `json:"tiered_storage,omitempty"`

	mu           sync.Mutex
	log          io.Writer
	startTimeout time.Duration
	stopOnExit   bool
	children     map[int]*child // by broker ID: processes this process started
	proxies      *child         // the proxy process, if this process started it
	registryProc *child         // the schema registry, if this process started it
}

// Broker is one node, broker and controller at once.
type Broker struct {
	ID             int `json:"id"`
	PID            int `json:"pid"`
	Port           int `json:"port"`            // clients' address: the client listener, or its proxy (Network)
	ControllerPort int `json:"controller_port"` // KRaft quorum listener
	// Host is the client listener's address (WithHost); "" is 127.0.0.1.
	Host string `json:"host,omitempty"`
	// InternalPort, on a secured or network-faults cluster, is the
	// PLAINTEXT listener the brokers replicate over (loopback only).
	InternalPort int `json:"internal_port,omitempty"`
	// DirectPort, on a network-faults cluster, is the broker's own client
	// listener; Port is then its client proxy's.
	DirectPort int `json:"direct_port,omitempty"`
	// MTLSPort, on a cluster with WithMutualTLSListener, is its second
	// client listener: mutual TLS.
	MTLSPort int `json:"mtls_port,omitempty"`
	// MetricsPort is the broker's Prometheus endpoint on 127.0.0.1 (its
	// JMX exporter agent; MetricsURL), a free port even with a port base.
	MetricsPort int    `json:"metrics_port,omitempty"`
	Dir         string `json:"dir"`
	ConfigPath  string `json:"config_path"` // server.properties; also identifies the process
	LogPath     string `json:"log_path"`    // broker log (log4j)
	OutPath     string `json:"out_path"`    // JVM stdout and stderr
	// Down says why kbench took the broker down ("killed", "stopped"),
	// until it starts again: a broker down without it died on its own.
	Down string `json:"down,omitempty"`
}

// Addr is the broker's client address.
func (b Broker) Addr() string { return net.JoinHostPort(b.ClientHost(), strconv.Itoa(b.Port)) }

// ClientHost is the host of the broker's client listener: its Host, else
// 127.0.0.1.
func (b Broker) ClientHost() string {
	if b.Host != "" {
		return b.Host
	}
	return "127.0.0.1"
}

// Host is the client listener's host given to Start (WithHost), "" for
// 127.0.0.1.
func (c *Cluster) Host() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.Brokers) == 0 {
		return ""
	}
	return c.Brokers[0].Host
}

// MTLSBootstrap is the comma-separated addresses of every broker's mutual
// TLS listener ("" without WithMutualTLSListener).
func (c *Cluster) MTLSBootstrap() string {
	var addrs []string
	for _, b := range c.Brokers {
		if b.MTLSPort > 0 {
			addrs = append(addrs, "127.0.0.1:"+strconv.Itoa(b.MTLSPort))
		}
	}
	return strings.Join(addrs, ",")
}

// Bootstrap is the comma-separated client addresses of every broker.
func (c *Cluster) Bootstrap() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	addrs := make([]string, len(c.Brokers))
	for i, b := range c.Brokers {
		addrs[i] = b.Addr()
	}
	return strings.Join(addrs, ",")
}

// Broker returns the broker with the given node id.
func (c *Cluster) Broker(id int) (Broker, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.index(id)
	if i < 0 {
		return Broker{}, false
	}
	return c.Brokers[i], true
}

// index finds a broker by id; c.mu must be held.
func (c *Cluster) index(id int) int {
	for i, b := range c.Brokers {
		if b.ID == id {
			return i
		}
	}
	return -1
}

// ErrNotFound is returned by Load when no cluster has that name.
var ErrNotFound = errors.New("no such cluster")

// ErrRunning is returned by Start when a cluster with that name is running.
var ErrRunning = errors.New("cluster already running")

const stateFile = "cluster.json"

// Load reads the state of the cluster named name under stateDir, as saved
// by Start. Its brokers may have died since; see Status.
func Load(stateDir, name string) (*Cluster, error) {
	if err := CheckName(name); err != nil {
		return nil, &OptionError{"name", name, err.Error()}
	}
	path := filepath.Join(stateDir, name, stateFile)
	c, err := readState(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load cluster %q: %w (no %s)", name, ErrNotFound, path)
	}
	if err != nil {
		return nil, fmt.Errorf("load cluster %q: %w", name, err)
	}
	return c, nil
}

func readState(path string) (*Cluster, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Cluster{log: io.Discard}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return c, nil
}

// save writes the whole state (a new cluster's).
func (c *Cluster) save() error {
	if err := c.write(filepath.Join(c.Dir, stateFile)); err != nil {
		return fmt.Errorf("save cluster state: %w", err)
	}
	return nil
}

// write writes the state atomically, so a reader never sees half a file.
func (c *Cluster) write(path string) error {
	c.mu.Lock()
	b, err := json.MarshalIndent(c, "", "  ")
	c.mu.Unlock()
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// updateBroker changes broker id in memory and in the saved state. The
// state is read again under a lock first, so that two kbench processes
// acting on one cluster (a plan's faults, a `cluster restart`) never write
// over each other's changes. A state already removed (`cluster down`) is
// left alone.
func (c *Cluster) updateBroker(id int, fn func(b *Broker)) error {
	c.mu.Lock()
	if i := c.index(id); i >= 0 {
		fn(&c.Brokers[i])
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	path := filepath.Join(c.Dir, stateFile)
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("save cluster state: %w", err)
	}
	defer unlock()
	disk, err := readState(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("save cluster state: %w", err)
	}
	if i := disk.index(id); i >= 0 {
		fn(&disk.Brokers[i])
	}
	return disk.write(path)
}

func (c *Cluster) logf(format string, args ...any) {
	if c.log != nil {
		fmt.Fprintf(c.log, format+"\n", args...)
	}
}

func (c *Cluster) timeout() time.Duration {
	if c.startTimeout > 0 {
		return c.startTimeout
	}
	return defaultConfig().startTimeout
}

// List returns the names of the clusters with state under stateDir,
// running or not, sorted.
func List(stateDir string) ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(stateDir, "*", stateFile))
	if err != nil {
		return nil, fmt.Errorf("list clusters: %w", err)
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = filepath.Base(filepath.Dir(m))
	}
	sort.Strings(names)
	return names, nil
}
