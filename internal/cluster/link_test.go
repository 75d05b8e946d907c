package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLinkPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b Endpoint
		want []string
	}{
		{"one broker to another: replication both ways", Brokers(1), Brokers(2),
			[]string{"node1-broker2", "node2-broker1"}},
		{"the clients to one broker", Clients(), Brokers(3), []string{"clients-broker3"}},
		{"order does not matter", Brokers(3), Clients(), []string{"clients-broker3"}},
		{"a broker and the quorum: its heartbeats, not the others' raft traffic to its controller",
			Brokers(1), AllControllers(), []string{"node1-controller2", "node1-controller3"}},
		{"a controller and a broker: that broker's connections to it", Controllers(1), Brokers(2),
			[]string{"node2-controller1"}},
		{"two controllers: raft both ways", Controllers(1), Controllers(3),
			[]string{"node1-controller3", "node3-controller1"}},
		{"a node cut off from every other node", Nodes(1), AllNodes(),
			[]string{"node1-broker2", "node1-broker3", "node1-controller2", "node1-controller3",
				"node2-broker1", "node2-controller1", "node3-broker1", "node3-controller1"}},
		{"a broker from the others and the quorum, clients still reach it", Brokers(2), AllBrokers().And(AllControllers()),
			[]string{"node1-broker2", "node2-broker1", "node2-broker3", "node2-controller1", "node2-controller3", "node3-broker2"}},
		{"every node and the clients", AllNodes(), Clients(),
			[]string{"clients-broker1", "clients-broker2", "clients-broker3"}},
	}
	c := threeNodes()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := c.Link(tt.a, tt.b)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range l.Proxies() {
				got = append(got, p.Name)
			}
			slices.Sort(got)
			slices.Sort(tt.want)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Link(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestLinkRefused(t *testing.T) {
	t.Parallel()
	plain := &Cluster{Name: "plain", Brokers: threeNodes().Brokers}
	tests := []struct {
		name string
		c    *Cluster
		a, b Endpoint
		want string
	}{
		{"no proxies", plain, Brokers(1), Brokers(2), "no network proxies (start it with network faults: kbench cluster up --network-faults)"},
		{"a node the cluster lacks", threeNodes(), Brokers(1), Brokers(4), `no node 4: cluster "unit" has nodes 1 to 3`},
		{"node 0", threeNodes(), Brokers(0), Brokers(2), `no node 0: cluster "unit" has nodes 1 to 3`},
		{"beyond any cluster", threeNodes(), Controllers(12), Brokers(2), `no node 12`},
		{"a node and itself", threeNodes(), Nodes(1), Nodes(1), "no connection runs between them"},
		{"nothing", threeNodes(), Brokers(), Brokers(2), "an endpoint names nothing"},
		{"the clients and a controller", threeNodes(), Clients(), Controllers(1), "no connection runs between them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.c.Link(tt.a, tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Link(%s, %s) = %v, want an error with %q", tt.a, tt.b, err, tt.want)
			}
		})
	}
	if _, err := plain.Link(Brokers(1), Brokers(2)); !errors.Is(err, ErrNoNetwork) {
		t.Errorf("Link on a cluster without proxies: %v, want ErrNoNetwork", err)
	}
}

func TestEndpointString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    Endpoint
		want string
	}{
		{Clients(), "the clients"},
		{Brokers(1), "broker 1"},
		{Brokers(2, 3), "brokers 2, 3"},
		{Nodes(1), "node 1"},
		{Nodes(1).And(Brokers(2)), "node 1 and broker 2"},
		{Controllers(3), "controller 3"},
		{AllBrokers(), "every broker"},
		{AllNodes().And(Clients()), "the clients and every node"},
		{Brokers(), "nothing"},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// fakeNetwork starts the proxy process of an n-node network-faults
// cluster whose listeners are echo servers: every path is real TCP through
// Toxiproxy, without Kafka.
func fakeNetwork(t *testing.T, n int) *Cluster {
	t.Helper()
	if err := checkLoopback(n); err != nil {
		t.Skip(err)
	}
	ports, err := freePorts(4*n + 1)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Name: "unit", Dir: t.TempDir(), log: testLog{t}, stopOnExit: true}
	for i := range n {
		b := Broker{ID: i + 1, Port: ports[4*i], ControllerPort: ports[4*i+1], InternalPort: ports[4*i+2], DirectPort: ports[4*i+3],
			Dir: filepath.Join(c.Dir, fmt.Sprintf("node-%d", i+1))}
		c.Brokers = append(c.Brokers, b)
		for _, port := range []int{b.ControllerPort, b.InternalPort, b.DirectPort} {
			echo(t, loopback(port))
		}
	}
	c.Network = &Network{API: loopback(ports[4*n]), Config: filepath.Join(c.Dir, "proxies.json"),
		LogPath: filepath.Join(c.Dir, "proxies.log"), Command: testProxyCommand(t), Proxies: layoutProxies(c.Brokers)}
	if err := c.writeNetwork(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.startProxies(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.stopProxies(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return c
}

// echo serves addr, writing back what it reads, until the test ends.
func echo(t *testing.T, addr string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_, _ = io.Copy(conn, conn)
			}()
		}
	}()
}

// path is the proxy address of the path from (0: the clients) to node to's
// listener.
func path(t *testing.T, c *Cluster, from, to int, listener string) string {
	t.Helper()
	for _, p := range c.Network.Proxies {
		if p.From == from && p.To == to && p.Listener == listener {
			return p.Listen
		}
	}
	t.Fatalf("no path %d → %s %d", from, listener, to)
	return ""
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// roundTrip sends size bytes through conn and reads them back from the
// echo server, returning how long that took.
func roundTrip(t *testing.T, conn net.Conn, size int) time.Duration {
	t.Helper()
	buf := make([]byte, size)
	began := time.Now()
	if err := conn.SetDeadline(began.Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(buf); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(conn, buf); err != nil {
		t.Fatalf("read the echo: %v", err)
	}
	return time.Since(began)
}

func roundTripAt(t *testing.T, addr string) time.Duration {
	t.Helper()
	return roundTrip(t, dial(t, addr), 1)
}

func mustLink(t *testing.T, c *Cluster, a, b Endpoint) *Link {
	t.Helper()
	l, err := c.Link(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// pathFaults returns each path's faults as NetworkStatus reports them.
func pathFaults(t *testing.T, c *Cluster) map[string]string {
	t.Helper()
	st, err := c.NetworkStatus(context.Background())
	if err != nil || st == nil || !st.Answers {
		t.Fatalf("NetworkStatus = %+v, %v", st, err)
	}
	out := map[string]string{}
	for _, p := range st.Paths {
		out[p.Name] = p.Describe()
	}
	return out
}

// The faults of a link, on real TCP connections through the proxy
// process. Bounds: a delay adds at least its latency each way, so a round
// trip takes at least twice it on any machine; "unaffected" round trips
// through an idle local proxy take well under a millisecond here, and are
// allowed 200 ms.
func TestLinkFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the proxy process")
	}
	c := fakeNetwork(t, 3)
	ctx := context.Background()
	const unaffected = 200 * time.Millisecond

	t.Run("delay", func(t *testing.T) {
		l := mustLink(t, c, Brokers(1), Brokers(2))
		before := dial(t, path(t, c, 1, 2, ListenerInternal)) // open before the fault: toxics reach existing connections
		if err := l.Delay(ctx, 100*time.Millisecond, 10*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		for _, addr := range []string{path(t, c, 1, 2, ListenerInternal), path(t, c, 2, 1, ListenerInternal)} {
			if rtt := roundTripAt(t, addr); rtt < 180*time.Millisecond {
				t.Errorf("round trip through %s took %s with 100ms ±10ms each way, want at least 180ms", addr, rtt)
			}
		}
		if rtt := roundTrip(t, before, 1); rtt < 180*time.Millisecond {
			t.Errorf("a connection open before the delay: round trip %s, want at least 180ms", rtt)
		}
		if rtt := roundTripAt(t, path(t, c, 3, 2, ListenerInternal)); rtt > unaffected {
			t.Errorf("node 3 → broker 2 took %s: the delay between brokers 1 and 2 reached it", rtt)
		}
		if got := pathFaults(t, c)["node1-broker2"]; got != "delay 100ms ±10ms" {
			t.Errorf("status of node1-broker2: %q, want the delay", got)
		}
		if err := l.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		if got := pathFaults(t, c)["node1-broker2"]; got != "none" {
			t.Errorf("status after heal: %q, want none", got)
		}
		if rtt := roundTripAt(t, path(t, c, 1, 2, ListenerInternal)); rtt > unaffected {
			t.Errorf("after heal a round trip took %s", rtt)
		}
	})

	t.Run("loss", func(t *testing.T) {
		l := mustLink(t, c, Clients(), Brokers(1))
		if err := l.Loss(ctx, 1, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if rtt := roundTripAt(t, path(t, c, 0, 1, ListenerClient)); rtt < 200*time.Millisecond {
			t.Errorf("every segment lost, 100ms to resend: round trip %s, want at least 200ms", rtt)
		}
		if got := pathFaults(t, c)["clients-broker1"]; got != "loss 100% (100ms)" {
			t.Errorf("status: %q", got)
		}
		if err := l.Loss(ctx, 0, DefaultRetransmit); err != nil { // zero clears
			t.Fatal(err)
		}
		if got := pathFaults(t, c)["clients-broker1"]; got != "none" {
			t.Errorf("status after Loss(0): %q, want none", got)
		}
	})

	t.Run("bandwidth", func(t *testing.T) {
		l := mustLink(t, c, Controllers(2), Controllers(3))
		if err := l.Bandwidth(ctx, 20_000); err != nil {
			t.Fatal(err)
		}
		// 10,000 bytes each way at 20,000 bytes/s: at least half a second.
		if rtt := roundTrip(t, dial(t, path(t, c, 2, 3, ListenerController)), 10_000); rtt < 450*time.Millisecond {
			t.Errorf("10 kB at 20 kB/s took %s, want at least 450ms", rtt)
		}
		if got := pathFaults(t, c)["node3-controller2"]; got != "bandwidth 20 KB/s" {
			t.Errorf("status: %q", got)
		}
		if err := l.Heal(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("cut", func(t *testing.T) {
		l := mustLink(t, c, Clients(), Brokers(1))
		open := dial(t, path(t, c, 0, 1, ListenerClient))
		roundTrip(t, open, 1)
		if err := l.Cut(ctx); err != nil {
			t.Fatal(err)
		}
		if err := open.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		var ne net.Error
		if _, err := open.Read(make([]byte, 1)); err == nil || (errors.As(err, &ne) && ne.Timeout()) {
			t.Errorf("a connection open when the link was cut: read %v, want it closed", err)
		}
		if conn, err := net.DialTimeout("tcp", path(t, c, 0, 1, ListenerClient), 10*time.Second); err == nil {
			conn.Close()
			t.Errorf("a new connection across the cut was accepted")
		}
		if rtt := roundTripAt(t, path(t, c, 0, 2, ListenerClient)); rtt > unaffected {
			t.Errorf("clients → broker 2 took %s while broker 1 was cut off", rtt)
		}
		if got := pathFaults(t, c)["clients-broker1"]; got != "cut" {
			t.Errorf("status: %q, want cut", got)
		}
		if err := l.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		roundTripAt(t, path(t, c, 0, 1, ListenerClient))
	})

	t.Run("cluster heal clears every fault", func(t *testing.T) {
		if err := mustLink(t, c, Nodes(1), AllNodes()).Cut(ctx); err != nil {
			t.Fatal(err)
		}
		if err := mustLink(t, c, Clients(), AllBrokers()).Delay(ctx, 5*time.Millisecond, 0); err != nil {
			t.Fatal(err)
		}
		if err := c.healNetwork(ctx); err != nil {
			t.Fatal(err)
		}
		for name, f := range pathFaults(t, c) {
			if f != "none" {
				t.Errorf("%s: %q after the cluster's heal", name, f)
			}
		}
	})
}

func TestLinkBadValues(t *testing.T) {
	t.Parallel()
	l := mustLink(t, threeNodes(), Brokers(1), Brokers(2))
	ctx := context.Background()
	tests := []struct {
		name string
		do   func() error
		want string
	}{
		{"sub-millisecond latency", func() error { return l.Delay(ctx, 1500*time.Microsecond, 0) }, "latency 1.5ms: the proxies count in whole milliseconds"},
		{"negative latency", func() error { return l.Delay(ctx, -time.Millisecond, 0) }, "latency -1ms is negative"},
		{"jitter over latency", func() error { return l.Delay(ctx, 10*time.Millisecond, 20*time.Millisecond) }, "jitter 20ms is more than the latency 10ms"},
		{"share over 1", func() error { return l.Loss(ctx, 1.5, DefaultRetransmit) }, "share 1.5: give a share of segments from 0 to 1"},
		{"share NaN", func() error { return l.Loss(ctx, math.NaN(), DefaultRetransmit) }, "share NaN"},
		{"no retransmit time", func() error { return l.Loss(ctx, 0.01, 0) }, "retransmit 0s: a lost segment costs at least a millisecond"},
		{"bandwidth under 1 KB/s", func() error { return l.Bandwidth(ctx, 500) }, "500 bytes/s: give at least 1000"},
		{"negative bandwidth", func() error { return l.Bandwidth(ctx, -1) }, "-1 bytes/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "broker 1 ↔ broker 2") {
				t.Fatalf("error %v, want %q naming the link", err, tt.want)
			}
		})
	}
}

func TestChunkLost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		share float64
		n     int
		u     float64
		want  bool
	}{
		{0, 32 << 10, 0, false},
		{1, 1, 0.999, true},
		{0.5, lossSegment, 0.49, true},
		{0.5, lossSegment, 0.51, false},
		// Two segments at 50% each: 75% that one is lost.
		{0.5, lossSegment + 1, 0.74, true},
		{0.5, lossSegment + 1, 0.76, false},
		// 1% of segments, a 32 KiB chunk of 23 segments: 20.6%.
		{0.01, 32 << 10, 0.20, true},
		{0.01, 32 << 10, 0.21, false},
	}
	for _, tt := range tests {
		if got := chunkLost(tt.share, tt.n, tt.u); got != tt.want {
			t.Errorf("chunkLost(%v, %d, %v) = %v, want %v", tt.share, tt.n, tt.u, got, tt.want)
		}
	}
}
