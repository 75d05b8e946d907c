package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/rs/zerolog"
)

// relayPath serves one path through a relay in this process, to an echo
// server, with the proxy process's API on an httptest server; it returns
// the relay, the path's address and the path as Toxiproxy's client sees it.
func relayPath(t *testing.T) (*relay, string, *toxiclient.Proxy) {
	r, addr, p, _ := relayPathAPI(t)
	return r, addr, p
}

// relayPathAPI is relayPath, with a client of the API.
func relayPathAPI(t *testing.T) (*relay, string, *toxiclient.Proxy, *toxiclient.Client) {
	t.Helper()
	ports, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	echo(t, loopback(ports[1]))
	p := Proxy{Name: "clients-broker1", Listen: loopback(ports[0]), Upstream: loopback(ports[1])}
	api, err := newFaultAPI([]Proxy{p}, zerolog.New(testLogWriter{t}).Level(zerolog.WarnLevel))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api)
	t.Cleanup(func() {
		srv.Close()
		http.DefaultTransport.(*http.Transport).CloseIdleConnections() // Toxiproxy's client's
		api.stop()
	})
	cl := toxiclient.NewClient(srv.URL)
	tp, err := cl.Proxy(p.Name)
	if err != nil {
		t.Fatal(err)
	}
	return api.relays[p.Name], p.Listen, tp, cl
}

// testLogWriter logs the proxies' warnings to the test.
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// waitPiped waits until want directions of the relay's connections run
// through a toxic pipeline.
func waitPiped(t *testing.T, r *relay, want int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.piped.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d directions in a toxic pipeline after 10 s, want %d", r.piped.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// delay adds a latency toxic to both directions of a path (what
// Link.Delay does); heal removes it.
func delay(t *testing.T, p *toxiclient.Proxy, ms int) {
	t.Helper()
	for _, stream := range []string{"upstream", "downstream"} {
		if _, err := p.AddToxic("kbench_delay_"+stream, "latency", stream, 1, toxiclient.Attributes{"latency": ms}); err != nil {
			t.Fatal(err)
		}
	}
}

func heal(t *testing.T, p *toxiclient.Proxy) {
	t.Helper()
	for _, stream := range []string{"upstream", "downstream"} {
		if err := p.RemoveToxic("kbench_delay_" + stream); err != nil {
			t.Fatal(err)
		}
	}
}

// streamByte is byte k of the test stream: each 4-byte word is its own
// index, big endian, so a byte lost, repeated or out of order shows.
func streamByte(k int64) byte {
	var w [4]byte
	binary.BigEndian.PutUint32(w[:], uint32(k/4))
	return w[k%4]
}

// A connection carries its bytes complete and in order while its path
// switches between the kernel's copy and the toxic pipeline, both ways,
// again and again, with bytes flowing (regression: the switch must hand
// the sockets over at a read boundary, with nothing in flight).
func TestRelaySwitchKeepsBytes(t *testing.T) {
	t.Parallel()
	r, addr, p := relayPath(t)
	conn := dial(t, addr)
	if err := conn.SetDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	written := make(chan int64, 1)
	go func() { // write the stream in uneven pieces until told to stop
		var k int64
		buf := make([]byte, 64<<10)
		for size := 1; ; size = size*7%(64<<10) + 1 {
			select {
			case <-stop:
				written <- k
				return
			default:
			}
			for i := range size {
				buf[i] = streamByte(k + int64(i))
			}
			n, err := conn.Write(buf[:size])
			k += int64(n)
			time.Sleep(100 * time.Microsecond) // bytes flowing at every switch, a few MB in all (checked byte by byte)
			if err != nil {
				t.Errorf("write at %d: %v", k, err)
				written <- k
				return
			}
		}
	}()
	var read int64
	var readErr error
	readDone := make(chan struct{})
	var mu sync.Mutex // guards want
	want := int64(-1)
	go func() { // read the echo back and check every byte
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			mu.Lock()
			done := want >= 0 && read >= want
			mu.Unlock()
			if done {
				return
			}
			n, err := conn.Read(buf)
			for i := range n {
				if buf[i] != streamByte(read) {
					readErr = fmt.Errorf("byte %d is %d, want %d", read, buf[i], streamByte(read))
					return
				}
				read++
			}
			if err != nil {
				readErr = fmt.Errorf("read at %d: %w", read, err)
				return
			}
		}
	}()

	const switches = 20
	for i := range switches {
		delay(t, p, 1)
		waitPiped(t, r, 2)
		time.Sleep(time.Duration(i%4) * 5 * time.Millisecond)
		heal(t, p)
		waitPiped(t, r, 0)
		time.Sleep(time.Duration(i%3) * 5 * time.Millisecond)
	}
	close(stop)
	total := <-written
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil { // bytes missing: fail soon
		t.Fatal(err)
	}
	mu.Lock()
	want = total
	mu.Unlock()
	<-readDone
	if readErr != nil {
		t.Fatalf("after %d switches each way: %v", switches, readErr)
	}
	if read != total {
		t.Fatalf("read %d bytes back, wrote %d", read, total)
	}
	if total < 1<<20 {
		t.Errorf("only %d bytes crossed: the switches were not under traffic", total)
	}
	t.Logf("%d bytes each way across %d switches each way", total, switches)
}

// A toxic on one direction sends only that direction through the
// pipeline; the other stays in the kernel.
func TestRelayOneDirection(t *testing.T) {
	t.Parallel()
	r, addr, p := relayPath(t)
	conn := dial(t, addr)
	roundTrip(t, conn, 1)
	if _, err := p.AddToxic("kbench_delay_upstream", "latency", "upstream", 1, toxiclient.Attributes{"latency": 50}); err != nil {
		t.Fatal(err)
	}
	waitPiped(t, r, 1)
	if rtt := roundTrip(t, conn, 1); rtt < 50*time.Millisecond {
		t.Errorf("round trip %s with 50ms upstream, want at least 50ms", rtt)
	}
	if err := p.RemoveToxic("kbench_delay_upstream"); err != nil {
		t.Fatal(err)
	}
	waitPiped(t, r, 0)
	roundTrip(t, conn, 1000)
}

// A cut closes the path's connections and refuses new ones, whether they
// are in the kernel's copy or in a toxic pipeline; after the heal the
// path carries connections again.
func TestRelayCut(t *testing.T) {
	t.Parallel()
	for _, piped := range []bool{false, true} {
		t.Run(fmt.Sprintf("piped=%v", piped), func(t *testing.T) {
			t.Parallel()
			r, addr, p := relayPath(t)
			conn := dial(t, addr)
			if piped {
				delay(t, p, 20)
				waitPiped(t, r, 2)
			}
			roundTrip(t, conn, 1)
			if err := p.Disable(); err != nil {
				t.Fatal(err)
			}
			if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
				t.Fatal(err)
			}
			var ne net.Error
			if _, err := conn.Read(make([]byte, 1)); err == nil || (errors.As(err, &ne) && ne.Timeout()) {
				t.Fatalf("a connection open when the path was cut: read %v, want it closed", err)
			}
			if c, err := net.DialTimeout("tcp", addr, 10*time.Second); err == nil {
				c.Close()
				t.Fatal("a new connection across the cut was accepted")
			}
			if r.enabled() {
				t.Fatal("the relay still listens after the cut")
			}
			if err := p.Enable(); err != nil {
				t.Fatal(err)
			}
			rtt := roundTripAt(t, addr)
			if piped && rtt < 40*time.Millisecond {
				t.Errorf("after the heal of the cut, with the delay still on: round trip %s, want at least 40ms", rtt)
			}
		})
	}
}

// Toxiproxy's reset clears every toxic and enables every path: connections
// return to the kernel.
func TestRelayReset(t *testing.T) {
	t.Parallel()
	r, addr, p, cl := relayPathAPI(t)
	conn := dial(t, addr)
	delay(t, p, 50)
	waitPiped(t, r, 2)
	if err := cl.ResetState(); err != nil {
		t.Fatal(err)
	}
	waitPiped(t, r, 0)
	if rtt := roundTrip(t, conn, 1); rtt > 90*time.Millisecond {
		t.Errorf("round trip %s after reset, want no delay (50ms each way before)", rtt)
	}
}

// BenchmarkRelay is the relay's cost per byte through the kernel (no
// toxic) and through Toxiproxy's pipeline (a zero delay each way: what
// every byte paid before the relays), against no relay at all (none), one
// connection, 16 KiB writes to a sink: MB/s and this process's CPU per MB
// (user and system: the relay, and the benchmark's own writer and sink).
//
//	go test -run '^$' -bench BenchmarkRelay -benchtime 2000x ./internal/cluster/
func BenchmarkRelay(b *testing.B) {
	for _, mode := range []string{"none", "kernel", "pipeline"} {
		piped := mode == "pipeline"
		b.Run(mode, func(b *testing.B) {
			ports, err := freePorts(2)
			if err != nil {
				b.Fatal(err)
			}
			sink, err := net.Listen("tcp", loopback(ports[1]))
			if err != nil {
				b.Fatal(err)
			}
			defer sink.Close()
			go func() {
				for {
					c, err := sink.Accept()
					if err != nil {
						return
					}
					go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
				}
			}()
			p := Proxy{Name: "bench", Listen: loopback(ports[0]), Upstream: loopback(ports[1])}
			api, err := newFaultAPI([]Proxy{p}, zerolog.Nop())
			if err != nil {
				b.Fatal(err)
			}
			defer api.stop()
			r := api.relays[p.Name]
			if piped {
				tp, _ := api.server.Collection.Get(p.Name)
				for _, s := range []string{"upstream", "downstream"} {
					if _, err := tp.Toxics.AddToxicJson(strings.NewReader(`{"name":"d_` + s + `","type":"latency","stream":"` + s + `","attributes":{"latency":0}}`)); err != nil {
						b.Fatal(err)
					}
				}
				api.steer()
			}
			addr := p.Listen
			if mode == "none" {
				addr = p.Upstream
			}
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			if piped {
				for r.piped.Load() != 2 {
					time.Sleep(time.Millisecond)
				}
			}
			buf := make([]byte, 16<<10)
			var before, after syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			b.SetBytes(int64(len(buf)))
			b.ResetTimer()
			for range b.N {
				if _, err := conn.Write(buf); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
			b.ReportMetric(float64(cpu.Microseconds())/(float64(b.N)*float64(len(buf))/1e6), "cpu-µs/MB")
		})
	}
}

// BenchmarkRelayRoundTrip is a small request's round trip (100 bytes to
// an echo server and back) with no relay, through the kernel path and
// through Toxiproxy's pipeline (a zero delay each way): the latency a
// hop adds to a request and its answer.
func BenchmarkRelayRoundTrip(b *testing.B) {
	for _, mode := range []string{"none", "kernel", "pipeline"} {
		b.Run(mode, func(b *testing.B) {
			ports, err := freePorts(2)
			if err != nil {
				b.Fatal(err)
			}
			up, err := net.Listen("tcp", loopback(ports[1]))
			if err != nil {
				b.Fatal(err)
			}
			defer up.Close()
			go func() {
				for {
					c, err := up.Accept()
					if err != nil {
						return
					}
					go func() { _, _ = io.Copy(c, c); c.Close() }()
				}
			}()
			p := Proxy{Name: "bench", Listen: loopback(ports[0]), Upstream: loopback(ports[1])}
			api, err := newFaultAPI([]Proxy{p}, zerolog.Nop())
			if err != nil {
				b.Fatal(err)
			}
			defer api.stop()
			if mode == "pipeline" {
				tp, _ := api.server.Collection.Get(p.Name)
				for _, s := range []string{"upstream", "downstream"} {
					if _, err := tp.Toxics.AddToxicJson(strings.NewReader(`{"name":"d_` + s + `","type":"latency","stream":"` + s + `","attributes":{"latency":0}}`)); err != nil {
						b.Fatal(err)
					}
				}
				api.steer()
			}
			addr := p.Listen
			if mode == "none" {
				addr = p.Upstream
			}
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			for mode == "pipeline" && api.relays[p.Name].piped.Load() != 2 {
				time.Sleep(time.Millisecond)
			}
			buf := make([]byte, 100)
			b.ResetTimer()
			for range b.N {
				if _, err := conn.Write(buf); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(conn, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
