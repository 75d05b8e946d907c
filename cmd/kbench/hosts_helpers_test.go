package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/coord"
)

// hostsHelper runs the test binary as one of TestWorkersOnSeparateHosts'
// helpers inside a network namespace, where the test process cannot
// connect: a delay line in front of the brokers, or a reader of the
// run's topics. It says whether args named one.
func hostsHelper(args []string) (handled bool, code int) {
	if len(args) < 2 {
		return false, 0
	}
	var err error
	switch args[1] {
	case "hosts-delay":
		if len(args) != 5 {
			return true, 2
		}
		err = serveDelay(args[2], args[3], args[4])
	case "hosts-read":
		if len(args) != 5 {
			return true, 2
		}
		err = readRun(args[2], args[3], args[4])
	default:
		return false, 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return true, 1
	}
	return true, 0
}

// serveDelay forwards connections from listen to upstream, delaying what
// the client sends by delay (one way, as netem on the client's link
// would): this kernel's tc may have no netem. It prints "listening" once
// it accepts, and serves until killed.
func serveDelay(listen, upstream, delay string) error {
	d, err := time.ParseDuration(delay)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Println("listening")
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go proxyConn(c, upstream, d)
	}
}

func proxyConn(c net.Conn, upstream string, d time.Duration) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	go func() {
		_, _ = io.Copy(c, u)
		c.Close()
	}()
	delayCopy(u, c, d)
}

// delayCopy copies src to dst, each chunk leaving d after it arrived, in
// order: a delay line, not a throttle.
func delayCopy(dst io.WriteCloser, src io.Reader, d time.Duration) {
	type chunk struct {
		b   []byte
		due time.Time
	}
	line := make(chan chunk, 4096)
	go func() {
		defer dst.Close()
		for c := range line {
			time.Sleep(time.Until(c.due))
			if _, err := dst.Write(c.b); err != nil {
				return
			}
		}
	}()
	defer close(line)
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		if n > 0 {
			line <- chunk{buf[:n], time.Now().Add(d)}
		}
		if err != nil {
			return
		}
	}
}

// hostsRead is what the reader helper prints: every worker's slice of
// the first repeat and the topic's end offsets summed.
type hostsRead struct {
	Slices  map[int]json.RawMessage `json:"slices"`
	Offsets int64                   `json:"offsets"`
}

func readRun(bootstrap, runID, topic string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := []kgo.Opt{kgo.SeedBrokers(bootstrap)}
	all, err := coord.ReadResults(ctx, opts, runID)
	if err != nil {
		return fmt.Errorf("read the run's results: %w", err)
	}
	out := hostsRead{Slices: map[int]json.RawMessage{}}
	for k, v := range all.First("s1.r1") {
		out.Slices[k] = v
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return fmt.Errorf("end offsets of %s: %w", topic, err)
	}
	ends.Each(func(o kadm.ListedOffset) { out.Offsets += o.Offset })
	return json.NewEncoder(os.Stdout).Encode(out)
}
