package cluster

import (
	"strings"
	"testing"
)

// threeNodes is a 3-node layout with made-up ports, for tests that only
// match paths.
func threeNodes() *Cluster {
	c := &Cluster{Name: "unit"}
	for id := 1; id <= 3; id++ {
		c.Brokers = append(c.Brokers, Broker{ID: id, Port: 9000 + id, ControllerPort: 9010 + id, InternalPort: 9020 + id, DirectPort: 9030 + id})
	}
	c.Network = &Network{Proxies: layoutProxies(c.Brokers)}
	return c
}

func TestHostsFile(t *testing.T) {
	t.Parallel()
	got := string(hostsFile(2, []int{1, 2, 3}, "box"))
	want := `# Written by kbench: node 2 reaches the other nodes through its own proxies on 127.1.0.2.
127.0.0.1 localhost node2.kbench.local
127.0.0.1 box
127.1.0.2 node1.kbench.local
127.1.0.2 node3.kbench.local
`
	if got != want {
		t.Errorf("hostsFile =\n%s\nwant\n%s", got, want)
	}
}

// TestNetworkProps: regression (issue 41): the controller listener was
// not advertised, so the KRaft leader told its followers its bind address
// (127.0.0.1, the real port) and a follower that reconnected went past the
// proxies: a partition never cut the quorum. It is advertised by name now.
func TestNetworkProps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		security string
		want     map[string]string
	}{
		{SecurityNone, map[string]string{
			"listeners":                      "PLAINTEXT://127.0.0.1:9032,INTERNAL://127.0.0.1:9022,CONTROLLER://127.0.0.1:9012",
			"advertised.listeners":           "PLAINTEXT://127.0.0.1:9002,INTERNAL://node2.kbench.local:9022,CONTROLLER://node2.kbench.local:9012",
			"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
			"inter.broker.listener.name":     "INTERNAL",
			"controller.quorum.voters":       "1@node1.kbench.local:9011,2@node2.kbench.local:9012,3@node3.kbench.local:9013",
		}},
		{SecuritySASLSSL, map[string]string{
			"listeners":                      "SASL_SSL://127.0.0.1:9032,INTERNAL://127.0.0.1:9022,CONTROLLER://127.0.0.1:9012",
			"advertised.listeners":           "SASL_SSL://127.0.0.1:9002,INTERNAL://node2.kbench.local:9022,CONTROLLER://node2.kbench.local:9012",
			"listener.security.protocol.map": "SASL_SSL:SASL_SSL,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
		}},
	}
	for _, tt := range tests {
		c := threeNodes()
		c.Security = tt.security
		got := c.networkProps(c.Brokers[1])
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("security %q: %s = %q, want %q", tt.security, k, got[k], v)
			}
		}
	}
}

func TestLayoutProxies(t *testing.T) {
	t.Parallel()
	c := threeNodes()
	ps := c.Network.Proxies
	// Clients to 3 brokers, and each of 3 nodes to 2 others' two listeners.
	if len(ps) != 3+3*2*2 {
		t.Fatalf("%d proxies, want 15", len(ps))
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.Listen] {
			t.Errorf("two proxies listen on %s", p.Listen)
		}
		seen[p.Listen] = true
		switch p.Listener {
		case ListenerClient:
			if p.From != 0 || !strings.HasPrefix(p.Listen, "127.0.0.1:900") || !strings.HasPrefix(p.Upstream, "127.0.0.1:903") {
				t.Errorf("client proxy %+v: want 127.0.0.1:Port → 127.0.0.1:DirectPort", p)
			}
		default:
			// A node's proxies listen on its own address, at the port the
			// destination advertises, and lead to that port on 127.0.0.1.
			host, port, _ := strings.Cut(p.Listen, ":")
			if host != sourceIP(p.From) || p.Upstream != "127.0.0.1:"+port {
				t.Errorf("node proxy %+v: want %s:PORT → 127.0.0.1:PORT", p, sourceIP(p.From))
			}
		}
	}
}

func TestDirectAddr(t *testing.T) {
	t.Parallel()
	c := threeNodes()
	tests := map[string]string{
		"127.0.0.1:9002":          "127.0.0.1:9032", // broker 2's client proxy → its own listener
		"node3.kbench.local:9023": "127.0.0.1:9023",
		"127.0.0.1:9022":          "127.0.0.1:9022",
		"example.com:9092":        "example.com:9092",
	}
	for in, want := range tests {
		if got := c.directAddr(in); got != want {
			t.Errorf("directAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNetworkOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []Opt
		want string
	}{
		{"no proxy command", []Opt{WithNetworkFaults(true)}, "no command to run the proxies with"},
		{"port base too high for four blocks", []Opt{WithNetworkFaults(true), WithProxyCommand("kbench"), WithPortBase(65500)},
			`port-base "65500": must be at most 65496 with network faults`},
	}
	for _, tt := range tests {
		_, err := newConfig(tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := newConfig([]Opt{WithNetworkFaults(true), WithProxyCommand("kbench"), WithPortBase(65496)}); err != nil {
		t.Errorf("the highest base with network faults: %v", err)
	}
}
