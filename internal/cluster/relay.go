package cluster

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/rs/zerolog"
)

// A relay carries the connections of one path (a Proxy): it listens,
// dials the path's upstream for every connection it accepts and copies
// both ways. A direction with no toxic on it goes through the kernel
// (io.Copy between two TCP connections is splice(2) on Linux: no copy
// into the process, no goroutine handing chunks on); while the path has a
// toxic in that direction, the connection's bytes go through Toxiproxy's
// toxic pipeline instead (the path's ToxicCollection, as Toxiproxy's own
// proxy would run it). Toxiproxy's proxies ran every byte through that
// pipeline, toxic or not: a chunk allocated per read and three goroutines
// handing it on, which cost 30% of a 3-broker cluster's records/s with
// acks=all (docs/benchmarks.md).
//
// Switching never loses or reorders a byte. Each direction of a
// connection has one pump goroutine (relayConn.pump). To switch it, the
// relay sets a read deadline in the past on the direction's source socket
// (steer): the splice returns at a read boundary with nothing in flight
// (Go's splice empties its pipe into the destination before it reads
// again), and the pump hands the sockets to a toxic pipeline. Back, the
// pipeline's reader sees the same deadline and ends its input as at the
// end of the stream; the pipeline delivers what it holds, in order, and
// only then does the pump splice again. Who asked is read under the
// relay's lock, as the deadline is set, so no request is lost.
type relay struct {
	name     string
	listen   string // where the path's connections arrive
	upstream string // the destination's own listener
	server   *toxiproxy.ApiServer
	toxics   *toxiproxy.ToxicCollection // the path's toxics, set through Toxiproxy's API
	log      zerolog.Logger

	mu    sync.Mutex
	ln    net.Listener  // nil while cut
	done  chan struct{} // closed when the accept loop of ln has returned
	conns map[*relayConn]struct{}
	toxic [stream.NumDirections]bool // a toxic acts on this direction: its bytes go through the pipeline
	seq   uint64                     // names connections and their pipelines

	pumps sync.WaitGroup
	piped atomic.Int32 // directions of connections in a toxic pipeline now
}

func newRelay(server *toxiproxy.ApiServer, p *toxiproxy.Proxy, log zerolog.Logger) *relay {
	return &relay{name: p.Name, listen: p.Listen, upstream: p.Upstream, server: server, toxics: p.Toxics,
		log: log.With().Str("proxy", p.Name).Logger(), conns: map[*relayConn]struct{}{}}
}

// start listens and accepts connections; a relay already listening is
// left as it is.
func (r *relay) start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", r.listen)
	if err != nil {
		return err
	}
	r.ln, r.done = ln, make(chan struct{})
	go r.accept(ln, r.done)
	return nil
}

// enabled says whether the relay listens (it is not cut).
func (r *relay) enabled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ln != nil
}

// cut stops listening (a new connection is refused) and closes every
// open connection, both sockets.
func (r *relay) cut() {
	r.mu.Lock()
	ln, done := r.ln, r.done
	r.ln = nil
	conns := make([]*relayConn, 0, len(r.conns))
	for c := range r.conns {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	if ln != nil {
		ln.Close()
		<-done
	}
	for _, c := range conns {
		c.close()
	}
}

// stop cuts the relay and waits up to wait for its connections' pumps:
// a toxic pipeline may hold bytes for a while (a delay, a bandwidth
// limit) before it sees its sockets closed.
func (r *relay) stop(wait time.Duration) {
	r.cut()
	ended := make(chan struct{})
	go func() {
		r.pumps.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(wait):
		r.log.Warn().Msg("connections still draining at shutdown")
	}
}

// setToxic says which directions have a toxic on them, and steers every
// open connection whose direction changes.
func (r *relay) setToxic(on [stream.NumDirections]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for d := range on {
		if on[d] == r.toxic[d] {
			continue
		}
		r.toxic[d] = on[d]
		for c := range r.conns {
			c.steer(stream.Direction(d))
		}
	}
}

// accept serves ln until it is closed.
func (r *relay) accept(ln net.Listener, done chan struct{}) {
	defer close(done)
	for {
		client, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return // cut
		}
		if err != nil { // out of file descriptors, say: try again, as net/http does
			r.log.Warn().Err(err).Msg("Error while accepting client")
			time.Sleep(100 * time.Millisecond)
			continue
		}
		upstream, err := net.DialTimeout("tcp", r.upstream, 10*time.Second)
		if err != nil {
			r.log.Error().Err(err).Str("client", client.RemoteAddr().String()).Msg("Unable to open connection to upstream")
			client.Close()
			continue
		}
		r.mu.Lock()
		if r.ln != ln { // cut meanwhile
			r.mu.Unlock()
			client.Close()
			upstream.Close()
			return
		}
		r.seq++
		c := &relayConn{r: r, id: r.seq, client: client.(*net.TCPConn), upstream: upstream.(*net.TCPConn)}
		r.conns[c] = struct{}{}
		r.pumps.Add(2)
		go c.pump(stream.Upstream)
		go c.pump(stream.Downstream)
		r.mu.Unlock()
	}
}

// relayConn is one connection through a relay: the client's socket and
// the one to the upstream.
type relayConn struct {
	r                *relay
	id               uint64
	client, upstream *net.TCPConn
	closeOnce        sync.Once
}

// ends are a direction's source and destination: upstream is from the
// client to the upstream, downstream back.
func (c *relayConn) ends(d stream.Direction) (src, dst *net.TCPConn) {
	if d == stream.Upstream {
		return c.client, c.upstream
	}
	return c.upstream, c.client
}

// steer interrupts d's pump where it reads, so that it looks at the
// relay's toxic[d] again. Called with the relay's lock held.
func (c *relayConn) steer(d stream.Direction) {
	src, _ := c.ends(d)
	_ = src.SetReadDeadline(aLongTimeAgo)
}

// aLongTimeAgo is a read deadline that has passed: the read returns at
// once.
var aLongTimeAgo = time.Unix(1, 0)

// wantToxic clears the deadline steer set and says whether d goes through
// the toxic pipeline; under the relay's lock, so a steer after it is
// never lost.
func (c *relayConn) wantToxic(d stream.Direction) bool {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	src, _ := c.ends(d)
	_ = src.SetReadDeadline(time.Time{})
	return c.r.toxic[d]
}

// close closes both sockets and forgets the connection; the pumps end.
func (c *relayConn) close() {
	c.closeOnce.Do(func() {
		c.client.Close()
		c.upstream.Close()
		c.r.mu.Lock()
		delete(c.r.conns, c)
		c.r.mu.Unlock()
	})
}

// pump copies direction d until the connection ends, switching between
// the kernel and the toxic pipeline as the relay asks. When either
// direction ends (end of stream, an error, a cut), both sockets close, as
// with Toxiproxy's own proxies.
func (c *relayConn) pump(d stream.Direction) {
	defer c.r.pumps.Done()
	defer c.close()
	toxic := c.wantToxic(d)
	for {
		var more bool
		if toxic {
			more = c.throughToxics(d)
		} else {
			more = c.direct(d)
		}
		if !more {
			return
		}
		toxic = !toxic
	}
}

// direct copies d through the kernel until the stream ends (false) or the
// relay asks for the toxic pipeline (true).
func (c *relayConn) direct(d stream.Direction) bool {
	src, dst := c.ends(d)
	for {
		_, err := dst.ReadFrom(src) // splice(2) between two TCP sockets
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return false // the end of the stream, or an error: the connection ends
		}
		if c.wantToxic(d) {
			return true
		}
	}
}

// throughToxics runs d through the path's toxic pipeline (Toxiproxy's
// ToxicLink with the toxics set now; later changes reach it as they reach
// Toxiproxy's own links) until the stream ends (false) or the relay asks
// for the kernel again and the pipeline has delivered every byte it held
// (true).
func (c *relayConn) throughToxics(d stream.Direction) bool {
	src, dst := c.ends(d)
	in := &handbackReader{c: c, d: d, conn: src}
	out := &handbackWriter{c: c, conn: dst, closed: make(chan struct{})}
	c.r.mu.Lock()
	c.r.seq++
	name := fmt.Sprintf("%d-%s-%d", c.id, d, c.r.seq) // a name per pipeline: the last one's removal comes late
	c.r.mu.Unlock()
	c.r.piped.Add(1)
	defer c.r.piped.Add(-1)
	c.r.toxics.StartLink(c.r.server, name, in, out, d)
	<-out.closed
	return in.handedBack && out.err == nil
}

// handbackReader is a toxic pipeline's source: the connection's socket,
// read until the relay asks for the kernel again (then it reads as the end
// of the stream).
type handbackReader struct {
	c          *relayConn
	d          stream.Direction
	conn       *net.TCPConn
	handedBack bool // ended because the kernel takes over, not the stream
}

func (h *handbackReader) Read(p []byte) (int, error) {
	for {
		n, err := h.conn.Read(p)
		if n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		if !h.c.wantToxic(h.d) {
			h.handedBack = true
			return 0, io.EOF
		}
	}
}

// handbackWriter is a toxic pipeline's destination: the connection's
// other socket, not closed when the pipeline ends (the pump decides).
// A failed write closes the connection (its source then ends the
// pipeline's input) and what follows is discarded, so that the pipeline
// drains and its goroutines end (Toxiproxy's writer stops reading when a
// write fails, and the toxics before it would block for ever).
type handbackWriter struct {
	c      *relayConn
	conn   *net.TCPConn
	err    error
	closed chan struct{}
}

func (h *handbackWriter) Write(p []byte) (int, error) {
	if h.err == nil {
		if _, h.err = h.conn.Write(p); h.err != nil {
			h.c.close()
		}
	}
	return len(p), nil
}

// Close is the pipeline's end: everything it held has been written.
func (h *handbackWriter) Close() error {
	close(h.closed)
	return nil
}
