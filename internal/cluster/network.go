package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// A network-faults cluster (WithNetworkFaults) runs every connection
// between its processes through proxies that kbench owns, one per
// (source, destination) pair, so that a fault can hit one pair and not
// another. Every process connects from 127.0.0.1, so a proxy cannot tell
// who connects; instead each source is sent to a proxy of its own:
//
//   - Nodes reach each other by host name (nodeN.kbench.local): the
//     inter-broker listener is advertised by name and the controller quorum
//     is listed by name. Each node's JVM reads its own hosts file
//     (-Djdk.net.hosts.file), in which every other node's name resolves to
//     that node's own loopback address, 127.1.0.<node> (the whole
//     127.0.0.0/8 is local on Linux). The proxy for (node S, node D's
//     listener) listens on 127.1.0.S at the port D advertises and forwards
//     to D's real listener on 127.0.0.1. A node's own name resolves to
//     127.0.0.1: a node reaches itself directly.
//   - Clients, whatever they are (kbench, the Java tools), reach a broker at
//     the address it advertises to clients, 127.0.0.1:Port, where the
//     broker's client proxy listens; the broker's own client listener is on
//     DirectPort.

// ErrNoNetwork is returned by Link on a cluster started without network
// faults (WithNetworkFaults, `cluster up --network-faults`).
var ErrNoNetwork = errors.New("no network proxies")

// nodeDomain ends the host names nodes know each other by.
const nodeDomain = ".kbench.local"

// nodeHost is node id's host name inside the cluster.
func nodeHost(id int) string { return "node" + strconv.Itoa(id) + nodeDomain }

// sourceIP is node id's loopback address: in node id's hosts file every
// other node's name resolves to it, and node id's proxies listen on it.
func sourceIP(id int) string { return "127.1.0." + strconv.Itoa(id) }

// The listeners a proxy leads to.
const (
	ListenerClient     = "client"     // a broker's client listener
	ListenerInternal   = "internal"   // a broker's inter-broker (replication) listener
	ListenerController = "controller" // a node's KRaft controller listener
)

// Proxy is one path of a network-faults cluster: the connections that one
// source (the clients, or a node) opens to one listener of one node.
type Proxy struct {
	Name     string `json:"name"`
	From     int    `json:"from"`     // the source node's id; 0 for the clients
	To       int    `json:"to"`       // the destination node's id
	Listener string `json:"listener"` // ListenerClient, ListenerInternal or ListenerController
	Listen   string `json:"listen"`   // where the proxy listens: where From's connections arrive
	Upstream string `json:"upstream"` // the destination's own listener
}

// String says which path the proxy carries: "clients → broker 1",
// "node 2 → broker 1" (replication), "node 2 → controller 1".
func (p Proxy) String() string {
	from := "clients"
	if p.From > 0 {
		from = "node " + strconv.Itoa(p.From)
	}
	to := "broker "
	if p.Listener == ListenerController {
		to = "controller "
	}
	return from + " → " + to + strconv.Itoa(p.To)
}

// Network is the proxies of a network-faults cluster and the process that
// runs them (Toxiproxy's proxies, served by kbench's proxy command).
type Network struct {
	PID int `json:"pid"`
	// API is the address of the proxy process's HTTP API (Toxiproxy's),
	// through which Link sets faults from any process.
	API string `json:"api"`
	// Config is the proxy process's config file (proxies.json); its
	// command line ends with it, which is how the process is recognised.
	Config  string `json:"config"`
	LogPath string `json:"log_path"`
	// Command starts the proxy process, with Config appended.
	Command []string `json:"command"`
	Proxies []Proxy  `json:"proxies"`
	// Down says why kbench took the proxies down, as Broker.Down.
	Down string `json:"down,omitempty"`
}

// proxyName names a proxy in the proxy process (and in its API's URLs):
// clients-broker1, node2-broker1 (replication), node2-controller1.
func proxyName(from, to int, listener string) string {
	src := "clients"
	if from > 0 {
		src = "node" + strconv.Itoa(from)
	}
	dst := "broker"
	if listener == ListenerController {
		dst = "controller"
	}
	return fmt.Sprintf("%s-%s%d", src, dst, to)
}

// layoutProxies lists the proxies of a cluster with these brokers: the
// clients to each broker, and each node to every other node's
// inter-broker and controller listeners.
func layoutProxies(brokers []Broker) []Proxy {
	var out []Proxy
	for _, d := range brokers {
		out = append(out, Proxy{Name: proxyName(0, d.ID, ListenerClient), From: 0, To: d.ID, Listener: ListenerClient,
			Listen: loopback(d.Port), Upstream: loopback(d.DirectPort)})
	}
	for _, kind := range []string{ListenerInternal, ListenerController} {
		for _, d := range brokers {
			port := d.InternalPort
			if kind == ListenerController {
				port = d.ControllerPort
			}
			for _, s := range brokers {
				if s.ID == d.ID {
					continue
				}
				out = append(out, Proxy{Name: proxyName(s.ID, d.ID, kind), From: s.ID, To: d.ID, Listener: kind,
					Listen: net.JoinHostPort(sourceIP(s.ID), strconv.Itoa(port)), Upstream: loopback(port)})
			}
		}
	}
	return out
}

func loopback(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// networkVoters is the static KRaft quorum by host name.
func networkVoters(brokers []Broker) string {
	v := make([]string, len(brokers))
	for i, b := range brokers {
		v[i] = fmt.Sprintf("%d@%s:%d", b.ID, nodeHost(b.ID), b.ControllerPort)
	}
	return strings.Join(v, ",")
}

// networkProps are a network-faults node's listeners: the client listener
// (PLAINTEXT, or the secured protocol) on DirectPort, advertised at Port
// where its client proxy listens; brokers among themselves on INTERNAL,
// advertised by host name; the controller quorum by host name, in the
// static voters and in the controller's advertised listener. The second
// matters: a KRaft leader tells its followers its own endpoint (KIP-853),
// and without an advertised CONTROLLER listener that is its bind address,
// 127.0.0.1:ControllerPort, the real port behind the proxies. A follower
// that lost its connection reconnected there, past the proxies, so a
// partition never cut the quorum: the cut-off active controller kept it,
// fenced the brokers it could no longer hear from, and no election came
// (issue 41).
func (c *Cluster) networkProps(b Broker) map[string]string {
	proto := map[string]string{SecurityNone: "PLAINTEXT", SecuritySASLSSL: "SASL_SSL", SecuritySSL: "SSL"}[c.Security]
	return map[string]string{
		"listeners": fmt.Sprintf("%s://127.0.0.1:%d,INTERNAL://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d",
			proto, b.DirectPort, b.InternalPort, b.ControllerPort),
		"advertised.listeners": fmt.Sprintf("%s://127.0.0.1:%d,INTERNAL://%s:%d,CONTROLLER://%s:%d",
			proto, b.Port, nodeHost(b.ID), b.InternalPort, nodeHost(b.ID), b.ControllerPort),
		"listener.security.protocol.map": proto + ":" + proto + ",INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"inter.broker.listener.name":     "INTERNAL",
		"controller.quorum.voters":       networkVoters(c.Brokers),
	}
}

func hostsPath(b Broker) string { return filepath.Join(b.Dir, "hosts") }

// hostsFile is node id's hosts file: its own name, localhost and the
// machine's host name on 127.0.0.1, every other node's name on id's own
// loopback address, where its proxies listen. The JVM resolves nothing
// else (jdk.net.hosts.file replaces DNS).
func hostsFile(id int, ids []int, hostname string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by kbench: node %d reaches the other nodes through its own proxies on %s.\n", id, sourceIP(id))
	fmt.Fprintf(&b, "127.0.0.1 localhost %s\n", nodeHost(id))
	if hostname != "" && hostname != "localhost" {
		fmt.Fprintf(&b, "127.0.0.1 %s\n", hostname)
	}
	for _, other := range ids {
		if other != id {
			fmt.Fprintf(&b, "%s %s\n", sourceIP(id), nodeHost(other))
		}
	}
	return []byte(b.String())
}

// checkLoopback makes sure the loopback addresses the proxies of n nodes
// listen on can be bound: Linux routes all of 127.0.0.0/8 to the loopback
// interface, macOS only 127.0.0.1 unless aliases are added.
func checkLoopback(n int) error {
	for id := 1; id <= n; id++ {
		l, err := net.Listen("tcp", net.JoinHostPort(sourceIP(id), "0"))
		if err != nil {
			hint := "network faults need the loopback addresses 127.1.0.1 to 127.1.0." + strconv.Itoa(n)
			if runtime.GOOS == "darwin" {
				hint += "; macOS has only 127.0.0.1 on lo0: add them with 'sudo ifconfig lo0 alias 127.1.0.N up' for N = 1 to " + strconv.Itoa(n) + ", or run on Linux"
			}
			return &OptionError{"network-faults", "true", fmt.Sprintf("cannot listen on %s: %v (%s)", sourceIP(id), err, hint)}
		}
		l.Close()
	}
	return nil
}

// DirectDial dials addr as the cluster's own processes would reach it
// without the proxies: a node's host name is 127.0.0.1 (the same port),
// and a broker's client proxy address is its own client listener. Other
// addresses are dialled unchanged. kbench's own observers (readiness,
// status) dial through it, so that a fault on the clients' path does not
// blind them; give it to franz-go as kgo.Dialer(c.DirectDial).
func (c *Cluster) DirectDial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, c.directAddr(addr))
}

func (c *Cluster) directAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if strings.HasSuffix(host, nodeDomain) {
		return net.JoinHostPort("127.0.0.1", port)
	}
	if host != "127.0.0.1" && host != "localhost" {
		return addr
	}
	p, _ := strconv.Atoi(port)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.Brokers {
		if b.DirectPort > 0 && b.Port == p {
			return loopback(b.DirectPort)
		}
	}
	return addr
}
