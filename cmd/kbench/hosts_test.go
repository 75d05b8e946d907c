package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/wallclock"
)

// The bounds TestWorkersOnSeparateHosts holds each worker to (measured in
// docs/distributed.md, "Workers on separate hosts"). A worker's delay is
// one way, on what it sends, so the broker's stamp is off the round
// trip's midpoint by half of it: the offset's error is up to half the
// delay, plus the scheduling of two processes on a busy machine.
const (
	hostsOffsetSlack = 15 * time.Millisecond // over half the delay
	hostsStartSlack  = 25 * time.Millisecond // over the offset's error: the timer, the scheduler
	hostsGridSlack   = result.WorkerAlignment
)

// hostsWorker is one worker of the test: its one-way delay to the
// brokers and the test offset of its clock.
type hostsWorker struct {
	delay  time.Duration
	offset time.Duration
}

// hostsWorkers are the test's workers, KBENCH_HOSTS_WORKERS of them (5 by
// default, bench/hosts.sh gives more): delays of 5 to 25 ms and offsets of
// -4.3 s to +3.9 s, not whole seconds, so that intervals aligned on each
// worker's own clock would not line up.
func hostsWorkers(t *testing.T) []hostsWorker {
	n := 5
	if s := os.Getenv("KBENCH_HOSTS_WORKERS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 2 || v > 200 {
			t.Fatalf("KBENCH_HOSTS_WORKERS=%q: want 2 to 200", s)
		}
		n = v
	}
	offsets := []time.Duration{-4300, -2100, 0, 1700, 3900}
	ws := make([]hostsWorker, n)
	for i := range ws {
		ws[i] = hostsWorker{delay: time.Duration(5*(i%5+1)) * time.Millisecond,
			offset: offsets[i%5]*time.Millisecond + time.Duration(i/5)*130*time.Millisecond}
	}
	return ws
}

// TestWorkersOnSeparateHosts runs a distributed plan with the brokers and
// each worker in a network namespace of its own, joined by veth pairs to
// a bridge in the brokers' namespace; each worker's requests reach the
// brokers through a delay line (5 to 25 ms one way) and its clock is
// shifted by the test hook (seconds, both ways). Every worker exits 0;
// the merge is exact (the merged records are the sum of the slices' and
// of the topic's end offsets); each measured offset is within half the
// worker's delay plus hostsOffsetSlack of the injected one; each worker
// released its workloads within its offset's error plus hostsStartSlack
// of the common start; every interval starts within hostsGridSlack of a
// whole second of the reference clock, and of a merged interval.
func TestWorkersOnSeparateHosts(t *testing.T) {
	skipNoNetns(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	began := time.Now()
	ws := hostsWorkers(t)
	bin := kbenchBin(t)
	self, err := os.Executable()
	must(t, err)
	n := newHostsNet(t, fmt.Sprintf("kbh%d", os.Getpid()), len(ws))
	port := n.clusterUp(t, ctx, bin, hostsHome(t, ctx))
	bootstrap := net2(n.kafka, port)
	for i, w := range ws {
		n.delay(t, ctx, self, i, port, w.delay)
	}
	const seconds, rate = 4, 1000
	topic := uniqueTopic(t, "hosts")
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	must(t, os.WriteFile(plan, []byte(fmt.Sprintf(`name: hosts
cluster: {bootstrap: %s}
topics: [{name: %s, partitions: %d, replication: 1}]
workloads:
  - {name: producer, type: produce, topic: %[2]s, clients: %[3]d, message: {size: 100}, rate: %d, duration: %ds}
`, bootstrap, topic, len(ws), rate, seconds)), 0o644))
	runID := uniqueTopic(t, "hosts-run")
	out := filepath.Join(t.TempDir(), "merged")
	n.runWorkers(t, ctx, bin, plan, runID, out, ws)

	doc, err := result.Read(filepath.Join(out, "result.json"))
	must(t, err)
	rep := doc.Plan.Scenarios[0].Repeats[0]
	d := doc.Plan.Distributed
	if rep.Status != result.StatusOK || rep.Workers != len(ws) || d == nil || len(d.Clocks) != len(ws) {
		t.Fatalf("merged repeat: status %q (%s), %d workers, distributed %+v; want ok from %d with every clock", rep.Status, rep.Error, rep.Workers, d, len(ws))
	}
	read := n.readRun(t, ctx, self, bootstrap, runID, topic)
	checkHostsMerge(t, rep, read, len(ws), rate*seconds)
	checkHostsClocks(t, d.Clocks, ws)
	checkHostsGrid(t, rep, read)
	hangGuard(t, time.Since(began), 150*time.Second, "%d workers in network namespaces of their own: a cluster started, a %d s run", len(ws), seconds)
}

// skipNoNetns skips unless the test can make network namespaces: root,
// ip, and not -short.
func skipNoNetns(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Kafka cluster in a network namespace, which go test -short does not")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make network namespaces (ip netns)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs the ip command (iproute2), to make network namespaces")
	}
}

// hostsNet is the test's network: namespace prefix-b for the brokers,
// with a bridge at 10.77.0.1/24, and prefix-wI for worker I at
// 10.77.0.(11+I), a veth pair from each to the bridge. The brokers'
// host name, prefix-kafka, is 10.77.0.1 in the brokers' namespace and
// 127.0.0.1 (the worker's delay line) in a worker's, through the hosts
// files `ip netns exec` mounts (/etc/netns/NS/hosts).
type hostsNet struct {
	prefix, brokers, kafka string
	workers                []string
}

const hostsHub = "10.77.0.1"

func newHostsNet(t *testing.T, prefix string, workers int) *hostsNet {
	t.Helper()
	n := &hostsNet{prefix: prefix, brokers: prefix + "-b", kafka: prefix + "-kafka"}
	// Registered first, so it runs last: after the processes stopped.
	t.Cleanup(func() { n.remove(t) })
	if err := n.addNS(n.brokers, hostsHub); err != nil {
		t.Skipf("cannot make a network namespace here: %v", err)
	}
	for _, c := range [][]string{
		{"-n", n.brokers, "link", "add", "br0", "type", "bridge"},
		{"-n", n.brokers, "addr", "add", hostsHub + "/24", "dev", "br0"},
		{"-n", n.brokers, "link", "set", "br0", "up"},
	} {
		if err := ipCmd(c...); err != nil {
			t.Skipf("cannot make a bridge here: %v", err)
		}
	}
	for i := range workers {
		ns := fmt.Sprintf("%s-w%d", prefix, i)
		must(t, n.addNS(ns, "127.0.0.1"))
		n.workers = append(n.workers, ns)
		peer := fmt.Sprintf("p%d", i)
		for _, c := range [][]string{
			{"link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", peer, "netns", n.brokers},
			{"-n", n.brokers, "link", "set", peer, "master", "br0", "up"},
			{"-n", ns, "addr", "add", fmt.Sprintf("10.77.0.%d/24", 11+i), "dev", "eth0"},
			{"-n", ns, "link", "set", "eth0", "up"},
		} {
			must(t, ipCmd(c...))
		}
	}
	return n
}

// addNS makes namespace ns with its loopback up and a hosts file where
// the brokers' name is kafkaAt.
func (n *hostsNet) addNS(ns, kafkaAt string) error {
	dir := filepath.Join("/etc/netns", ns)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	hosts := fmt.Sprintf("127.0.0.1 localhost\n%s %s\n", kafkaAt, n.kafka)
	if err := os.WriteFile(filepath.Join(dir, "hosts"), []byte(hosts), 0o644); err != nil {
		return err
	}
	if err := ipCmd("netns", "add", ns); err != nil {
		return err
	}
	return ipCmd("-n", ns, "link", "set", "lo", "up")
}

// remove stops what still runs in the test's namespaces (only the test
// started processes there) and deletes them, their veths and hosts files.
func (n *hostsNet) remove(t *testing.T) {
	for _, ns := range append([]string{n.brokers}, n.workers...) {
		killNS(ns)
		if err := ipCmd("netns", "del", ns); err != nil && !strings.Contains(err.Error(), "No such file") {
			t.Errorf("remove namespace %s: %v", ns, err)
		}
		_ = os.RemoveAll(filepath.Join("/etc/netns", ns))
	}
	_ = os.Remove("/etc/netns") // only when empty: another's may be there
}

// killNS kills, by pid, every process in namespace ns.
func killNS(ns string) {
	out, _ := exec.Command("ip", "netns", "pids", ns).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// inNS is a command run in namespace ns, with env added.
func inNS(ctx context.Context, ns string, env []string, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, bin}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// hostsHome is a KBENCH_HOME of the test's own (its clusters apart from
// the user's) holding links to the user's fetched jars, fetched here
// first: the brokers' namespace has no way out.
func hostsHome(t *testing.T, ctx context.Context) string {
	t.Helper()
	cache := defaultCacheDir(os.Getenv)
	if _, err := cluster.Fetch(ctx, cluster.WithCacheDir(cache)); err != nil {
		t.Fatalf("fetch Kafka: %v", err)
	}
	home := t.TempDir()
	for _, d := range []string{"kafka", "jmx-exporter", "kafka-storage-test"} {
		must(t, os.Symlink(filepath.Join(cache, d), filepath.Join(home, d)))
	}
	return home
}

// clusterUp starts a 1-broker cluster in the brokers' namespace,
// advertised at the brokers' name, and returns its port; it is stopped
// when the test ends.
func (n *hostsNet) clusterUp(t *testing.T, ctx context.Context, bin, home string) int {
	t.Helper()
	env := []string{"KBENCH_HOME=" + home}
	clusterStartedElsewhere.Add(1)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if out, err := inNS(ctx, n.brokers, env, bin, "cluster", "down", "--name", "hosts").CombinedOutput(); err != nil {
			t.Logf("cluster down: %v\n%s", err, out)
		}
	})
	out, err := inNS(ctx, n.brokers, env, bin, "cluster", "up", "--name", "hosts", "--heap", "512m", "--advertise-host", n.kafka).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("cluster up: %v\n%s", err, ee.Stderr)
	}
	must(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	addr := strings.TrimPrefix(lines[len(lines)-1], "bootstrap.servers=")
	_, p, ok := strings.Cut(addr, n.kafka+":")
	port, perr := strconv.Atoi(p)
	if !ok || perr != nil {
		t.Fatalf("cluster up printed %q, want bootstrap.servers=%s:PORT", addr, n.kafka)
	}
	return port
}

// delay starts worker i's delay line: the brokers' port on the worker's
// loopback, forwarded to the brokers with what the worker sends d late.
func (n *hostsNet) delay(t *testing.T, ctx context.Context, self string, i, port int, d time.Duration) {
	t.Helper()
	cmd := inNS(ctx, n.workers[i], nil, self, "hosts-delay", net2("127.0.0.1", port), net2(hostsHub, port), d.String())
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "listening\n" {
		t.Fatalf("worker %d's delay line: %q, %v", i, line, err)
	}
}

// runWorkers runs the workers, each in its namespace with its clock's
// offset, and fails the test unless each exits 0.
func (n *hostsNet) runWorkers(t *testing.T, ctx context.Context, bin, plan, runID, out string, ws []hostsWorker) {
	t.Helper()
	procs := make([]*workerProc, len(ws))
	for i, w := range ws {
		args := []string{"run", plan, "--workers", strconv.Itoa(len(ws)), "--worker-index", strconv.Itoa(i), "--run-id", runID, "--keep-control"}
		if i == 0 {
			args = append(args, "--out", out)
		}
		p := &workerProc{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
		p.cmd = inNS(ctx, n.workers[i], []string{wallclock.EnvTestOffset + "=" + w.offset.String()}, bin, args...)
		p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
		must(t, p.cmd.Start())
		go func() { p.done <- p.cmd.Wait() }()
		procs[i] = p
	}
	for i, p := range procs {
		if code := p.exit(t); code != 0 {
			t.Fatalf("worker %d: exit %d\n%s", i, code, p.stderr)
		}
	}
}

// readRun reads the run's slices and the topic's offsets from the
// brokers' namespace, where the test process cannot connect.
func (n *hostsNet) readRun(t *testing.T, ctx context.Context, self, bootstrap, runID, topic string) hostsRead {
	t.Helper()
	out, err := inNS(ctx, n.workers[0], nil, self, "hosts-read", bootstrap, runID, topic).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("read the run: %v\n%s", err, ee.Stderr)
	}
	must(t, err)
	var r hostsRead
	must(t, json.Unmarshal(out, &r))
	return r
}

func net2(host string, port int) string { return host + ":" + strconv.Itoa(port) }

// hostsSlice is the part of a worker's slice the test reads.
type hostsSlice struct {
	StartLateMs *float64      `json:"start_late_ms"`
	Repeat      result.Repeat `json:"repeat"`
}

func (r hostsRead) slice(t *testing.T, k int) hostsSlice {
	t.Helper()
	var s hostsSlice
	must(t, json.Unmarshal(r.Slices[k], &s))
	return s
}

// checkHostsMerge: every worker's slice is there, and the merged records
// are the slices' sum, the topic's end offsets and the plan's records.
func checkHostsMerge(t *testing.T, rep result.Repeat, read hostsRead, workers int, want int64) {
	t.Helper()
	if len(read.Slices) != workers {
		t.Fatalf("%d slices on the results topic, want %d", len(read.Slices), workers)
	}
	var sum int64
	for k := range workers {
		for _, w := range read.slice(t, k).Repeat.Workloads {
			if w.Producer != nil {
				sum += w.Producer.Records
			}
		}
	}
	got := rep.Workloads[0].Producer.Records
	if got != sum || sum != read.Offsets || got != want || len(rep.Workloads[0].Workers) != workers {
		t.Errorf("records: merged %d, the slices' sum %d, the topic's end offsets %d, %d worker rows; want %d and %d rows",
			got, sum, read.Offsets, len(rep.Workloads[0].Workers), want, workers)
	}
}

// checkHostsClocks: each measured offset is the injected one, within
// half the worker's delay plus hostsOffsetSlack (and within the
// uncertainty it states), and each worker started within its offset's
// error plus hostsStartSlack of the common start. It logs the table that
// bench/hosts.sh prints.
func checkHostsClocks(t *testing.T, clocks []result.WorkerClock, ws []hostsWorker) {
	t.Helper()
	t.Logf("hosts: | worker | delay ms | injected offset ms | measured offset ms | error ms | uncertainty ms | start late ms | start skew ms |")
	t.Logf("hosts: | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, c := range clocks {
		w := ws[c.Worker]
		// offset = reference - clock, and the clock is ahead by the
		// injected offset: the measure of it is -offset.
		inj := float64(w.offset.Microseconds()) / 1000
		errMs := c.OffsetMs + inj
		bound := float64((w.delay/2 + hostsOffsetSlack).Microseconds()) / 1000
		late := math.NaN()
		if c.StartLateMs != nil {
			late = *c.StartLateMs
		}
		// The worker's start on the true clock (the brokers', here): its
		// own reckoning less its offset's error.
		skew := late - errMs
		t.Logf("hosts: | %d | %.0f | %+.0f | %+.1f | %+.1f | %.1f | %.1f | %+.1f |", c.Worker, float64(w.delay.Milliseconds()), inj, c.OffsetMs, errMs, c.UncertaintyMs, late, skew)
		if math.Abs(errMs) > bound || math.Abs(errMs) > c.UncertaintyMs+1 {
			t.Errorf("worker %d: offset %+.1f ms ± %.1f, injected clock %+.0f ms: %.1f ms off, want within %.1f ms and the stated uncertainty",
				c.Worker, c.OffsetMs, c.UncertaintyMs, inj, errMs, bound)
		}
		if math.IsNaN(late) || math.Abs(skew) > bound+float64(hostsStartSlack.Milliseconds()) {
			t.Errorf("worker %d: started %.1f ms from the common start (%.1f ms by its clock), want within %.1f ms",
				c.Worker, skew, late, bound+float64(hostsStartSlack.Milliseconds()))
		}
	}
}

// checkHostsGrid: on the reference clock, every interval of every worker
// but its first (which begins at the start) begins within hostsGridSlack
// of a whole second, and of a merged interval's start; and the merged
// intervals are as many as one worker's would be.
func checkHostsGrid(t *testing.T, rep result.Repeat, read hostsRead) {
	t.Helper()
	merged := rep.Workloads[0].Producer.Intervals
	for k := range len(read.Slices) {
		for _, w := range read.slice(t, k).Repeat.Workloads {
			if w.Producer == nil {
				continue
			}
			for j, iv := range w.Producer.Intervals {
				frac := time.Duration(iv.Start.UnixNano() % int64(time.Second))
				off := min(frac, time.Second-frac)
				if j > 0 && off > hostsGridSlack {
					t.Errorf("worker %d: interval %d starts at %s, %v from a whole second of the reference clock", k, j, iv.Start.Format(time.RFC3339Nano), off)
				}
				if !nearAny(iv.Start, merged) {
					t.Errorf("worker %d: interval %d at %s lines up with no merged interval", k, j, iv.Start.Format(time.RFC3339Nano))
				}
			}
		}
	}
	if most := 4 + 3; len(merged) > most {
		t.Errorf("%d merged intervals for a 4 s run, want at most %d: the workers' intervals did not line up", len(merged), most)
	}
}

func nearAny(at time.Time, ivs []result.Interval) bool {
	for _, m := range ivs {
		if d := at.Sub(m.Start); d >= -hostsGridSlack && d <= hostsGridSlack {
			return true
		}
	}
	return false
}
