// Package linkuse measures the client host's network interface toward a
// cluster over a repeat: the bytes it sent and received and, when the
// kernel knows the link's speed, how much of it they used. It is how a
// run against a remote cluster says whether the network between was
// what limited it.
package linkuse

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/result"
)

// Sampler holds an interface's counters at the start of a repeat.
type Sampler struct {
	sys        string // "/sys/class/net", or a test's folder
	iface      string
	start      time.Time
	sent, recv int64
	now        func() time.Time
}

// Toward finds the interface the kernel would send to addr (host:port)
// through: a UDP socket connected to it sends nothing but picks its local
// address. A loopback destination is an error: loopback has no link to
// fill.
func Toward(addr string) (string, error) {
	c, err := net.Dial("udp", addr)
	if err != nil {
		return "", fmt.Errorf("route to %s: %w", addr, err)
	}
	local := c.LocalAddr().(*net.UDPAddr).IP
	c.Close()
	if local.IsLoopback() {
		return "", errors.New("the cluster is on this host (loopback)")
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return "", fmt.Errorf("list interfaces: %w", err)
	}
	for _, i := range ifs {
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(local) {
				return i.Name, nil
			}
		}
	}
	return "", fmt.Errorf("no interface holds %s, the address toward %s", local, addr)
}

// Start reads iface's counters now.
func Start(iface string) (*Sampler, error) {
	return start("/sys/class/net", iface, time.Now)
}

func start(sys, iface string, now func() time.Time) (*Sampler, error) {
	s := &Sampler{sys: sys, iface: iface, now: now}
	var err error
	if s.sent, s.recv, err = s.counters(); err != nil {
		return nil, err
	}
	s.start = now()
	return s, nil
}

// Stop reads the counters again and returns what the repeat used.
func (s *Sampler) Stop() *result.Network {
	sent, recv, err := s.counters()
	wall := s.now().Sub(s.start).Seconds()
	n := &result.Network{Interface: s.iface}
	if err != nil || wall <= 0 {
		return n
	}
	n.SentBytes, n.ReceivedBytes = sent-s.sent, recv-s.recv
	if mbps := s.speed(); mbps > 0 {
		n.LinkMbps = mbps
		busy := 100 * float64(max(n.SentBytes, n.ReceivedBytes)) * 8 / 1e6 / wall / mbps
		n.BusyPct = &busy
	}
	return n
}

func (s *Sampler) counters() (sent, recv int64, err error) {
	if sent, err = s.read("statistics/tx_bytes"); err != nil {
		return 0, 0, err
	}
	recv, err = s.read("statistics/rx_bytes")
	return sent, recv, err
}

// speed is the link's speed in Mb/s; 0 when the kernel gives none (a
// virtual interface says -1 or refuses the read).
func (s *Sampler) speed() float64 {
	v, err := s.read("speed")
	if err != nil || v <= 0 {
		return 0
	}
	return float64(v)
}

func (s *Sampler) read(name string) (int64, error) {
	b, err := os.ReadFile(filepath.Join(s.sys, s.iface, name))
	if err != nil {
		return 0, fmt.Errorf("interface %s: %w", s.iface, err)
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("interface %s %s: %w", s.iface, name, err)
	}
	return v, nil
}
