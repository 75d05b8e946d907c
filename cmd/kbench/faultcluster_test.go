package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// The fault tests share one real cluster: three brokers behind kbench's
// network proxies, started once with `kbench cluster up`, as a user
// studying failover starts theirs. The tests run one after another on it
// (each as a subtest of TestConformanceFaultCluster, never two at once:
// fault figures measured beside another fault test's JVMs are noise), and
// the cluster is healed and checked healed before each: every broker
// running, no fault on any proxy, the earlier tests' topics deleted.

// faultClusterName is the shared cluster's name, as plans name it
// (cluster: {name: faults}).
const faultClusterName = "faults"

// faultCluster is the shared fault cluster: its state directory (every
// test state that acts on it points there) and the bootstrap `cluster up`
// printed.
type faultCluster struct {
	stateDir  string
	bootstrap string
}

// state is a test state on the cluster's state directory, with fresh
// output buffers.
func (fc *faultCluster) state(t *testing.T) (*state, *syncBuffer, *syncBuffer) {
	t.Helper()
	st, _, _ := clusterTestState(t)
	st.stateDir = fc.stateDir
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	st.stdout, st.stderr = stdout, stderr
	return st, stdout, stderr
}

// load reads the cluster's state as the last command left it (a restart
// changes its brokers' PIDs).
func (fc *faultCluster) load(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Load(fc.stateDir, faultClusterName)
	if err != nil {
		t.Fatalf("load the fault cluster: %v", err)
	}
	return c
}

// TestConformanceFaultCluster is the fault tests on real Kafka: the
// cluster commands that start, break, mend and stop a cluster; the example
// plans; a leader kill with loss verification against an independent
// read-back; an election that comes while the killed leader restarts; a
// leader cut off by a network partition; a delay between brokers. It runs
// beside the other tests, its steps one at a time.
func TestConformanceFaultCluster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("conformance: starts a real 3-broker Kafka cluster")
	}
	fc := upFaultCluster(t)
	steps := []struct {
		name string
		run  func(*testing.T, *faultCluster)
	}{
		{"cluster status and proxies", clusterStatusAndProxies},
		{"cluster broker actions", clusterBrokerActions},
		{"faults left by a killed run", leftoverFaultsRefused},
		{"cluster clean", clusterClean},
		{"example plans", examplePlans},
		{"leader kill verified", leaderKillVerified},
		{"election belongs to the kill", electionBelongsToTheKill},
		{"leader partition verified", leaderPartitionVerified},
		{"replica delay", replicaDelay},
		{"zone delay", zoneDelay}, // a measurement: KBENCH_MEASURE=1 only
	}
	for _, s := range steps {
		if !t.Run(s.name, func(t *testing.T) {
			fc.heal(t)
			s.run(t, fc)
		}) && t.Context().Err() != nil {
			return
		}
	}
	t.Run("cluster down", fc.down)
}

// upFaultCluster starts the shared cluster through the command line, with
// fixed ports (--port-base: the same bootstrap from one up to the next),
// and checks what `up` says; the test's cleanup brings it down.
func upFaultCluster(t *testing.T) *faultCluster {
	t.Helper()
	fc := &faultCluster{stateDir: t.TempDir()}
	st, stdout, stderr := fc.state(t)
	base := freePortBase(t, 40) // clients, controllers, internal and direct listeners, the proxies' API
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if code := run(ctx, []string{"kbench", "cluster", "up", "--name", faultClusterName, "--brokers", "3", "--heap", "512m",
		"--network-faults", "--port-base", strconv.Itoa(base)}, st); code != exitOK {
		t.Fatalf("cluster up: exit %d\n%s", code, stderr)
	}
	// Registered first, run last: the cluster goes down even when a step
	// fails (the cluster down step checks the command itself).
	t.Cleanup(func() {
		st, _, _ := fc.state(t)
		runCluster(t, st, "down", "--name", faultClusterName)
	})
	want := fmt.Sprintf("bootstrap.servers=127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d", base, base+1, base+2)
	if last := lastLine(stdout.String()); last != want {
		t.Fatalf("cluster up: last line %q, want %q", last, want)
	}
	fc.bootstrap = strings.TrimPrefix(want, "bootstrap.servers=")
	// Clients to 3 brokers, each node to the 2 other brokers and the 2
	// other controllers: 15 paths.
	if !strings.Contains(stderr.String(), "every connection runs through the network proxies (15 paths") {
		t.Errorf("up does not say the paths run through proxies:\n%s", stderr)
	}
	stderr.Reset()
	if code := runCluster(t, st, "up", "--name", faultClusterName); code != exitUsage || !strings.Contains(stderr.String(), "already running") {
		t.Errorf("second up: exit %d, stderr %q; want exit 2 and 'already running'", code, stderr)
	}
	return fc
}

// heal brings the cluster back to what a test may assume, and checks it:
// every broker running (Cluster.Heal resumes, restarts and clears every
// proxy's faults), no topic of an earlier test, every broker registered
// and every partition left (the internal ones) with its full in-sync
// replica set. A test that cannot have that fails here, naming what is
// wrong, instead of measuring a broken cluster.
func (fc *faultCluster) heal(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := fc.load(t)
	if hs, err := c.Heal(ctx); err != nil {
		t.Fatalf("heal the fault cluster: %v", err)
	} else if len(hs) > 0 {
		t.Logf("healed after the last test: %+v", hs)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(fc.bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if topics, err := adm.ListTopics(ctx); err != nil {
		t.Fatalf("list the fault cluster's topics: %v", err)
	} else if names := topics.Names(); len(names) > 0 {
		if _, err := adm.DeleteTopics(ctx, names...); err != nil {
			t.Fatalf("delete the last test's topics %v: %v", names, err)
		}
	}
	var why string
	healed := waitFor(t, 2*time.Minute, func() bool {
		why = fc.unhealed(ctx, c, adm)
		return why == ""
	})
	if !healed {
		t.Fatalf("the fault cluster is not healed after 2 minutes: %s", why)
	}
}

// unhealed says what is not as a test may assume ("" when all is).
func (fc *faultCluster) unhealed(ctx context.Context, c *cluster.Cluster, adm *kadm.Client) string {
	for _, b := range c.Brokers {
		if alive, paused := c.Proc(b.ID); !alive || paused {
			return fmt.Sprintf("broker %d alive %v, paused %v", b.ID, alive, paused)
		}
	}
	ns, err := c.NetworkStatus(ctx)
	if err != nil {
		return "network status: " + err.Error()
	}
	if !ns.Alive || !ns.Answers {
		return fmt.Sprintf("the proxies: alive %v, answering %v", ns.Alive, ns.Answers)
	}
	for _, p := range ns.Paths {
		if d := p.Describe(); d != "none" {
			return fmt.Sprintf("path %s has faults: %s", p.Proxy, d)
		}
	}
	md, err := adm.Metadata(ctx)
	if err != nil {
		return "metadata: " + err.Error()
	}
	if len(md.Brokers) != len(c.Brokers) {
		return fmt.Sprintf("%d of %d brokers registered", len(md.Brokers), len(c.Brokers))
	}
	topics, err := adm.ListTopicsWithInternal(ctx)
	if err != nil {
		return "topics: " + err.Error()
	}
	for _, td := range topics.Sorted() {
		if !td.IsInternal {
			return fmt.Sprintf("topic %s is still there", td.Topic)
		}
		for _, p := range td.Partitions.Sorted() {
			if len(p.ISR) < len(p.Replicas) {
				return fmt.Sprintf("%s-%d has in-sync replicas %v of %v", td.Topic, p.Partition, p.ISR, p.Replicas)
			}
		}
	}
	return ""
}

// down is the last step: `cluster down` stops every process of the
// cluster and removes its folder; a second down says there is none.
func (fc *faultCluster) down(t *testing.T) {
	st, _, stderr := fc.state(t)
	c := fc.load(t)
	if code := runCluster(t, st, "down", "--name", faultClusterName); code != exitOK {
		t.Fatalf("down: exit %d\n%s", code, stderr)
	}
	for _, b := range c.Brokers {
		if alive, _ := c.Proc(b.ID); alive {
			t.Errorf("broker %d still runs after down", b.ID)
		}
	}
	if _, err := os.Stat(c.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after down: %v, want the cluster's folder removed", err)
	}
	stderr.Reset()
	if code := runCluster(t, st, "down", "--name", faultClusterName); code == exitOK || !strings.Contains(stderr.String(), `no cluster named "faults"`) {
		t.Errorf("down twice: exit %d, stderr %q; want an error", code, stderr)
	}
}

// clusterStatusAndProxies: `status` lists the brokers and every proxied
// path with the faults another process (a plan's) set on it; a dead proxy
// process fails status, and `up` brings it back with this executable even
// when the one recorded at `up` is gone (regression: it used the recorded
// one, which may be a test binary or a moved kbench), with no fault on the
// new proxies.
func clusterStatusAndProxies(t *testing.T, fc *faultCluster) {
	st, stdout, stderr := fc.state(t)
	c := fc.load(t)
	link, err := c.Link(cluster.Brokers(1), cluster.Brokers(2))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The delay is a run's, which holds the cluster while it runs.
	unlock, err := outfile.Lock(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := link.Delay(ctx, 20*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	if code := runCluster(t, st, "status", "--name", faultClusterName); code != exitOK {
		t.Fatalf("status: exit %d\n%s%s", code, stdout, stderr)
	}
	out := stdout.String()
	for _, want := range []string{"BROKER", "CONTROLLER", " up ", "server.log", "bootstrap.servers=" + fc.bootstrap, "network proxies: up (pid ", "PATH", "FAULTS",
		fmt.Sprintf("the faults above are the kbench run in process %d's", os.Getpid())} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	for _, line := range []struct{ path, faults string }{
		{"clients → broker 1 ", "none"}, {"clients → broker 3 ", "none"},
		{"node 1 → broker 2 ", "delay 20ms"}, {"node 2 → broker 1 ", "delay 20ms"},
		{"node 1 → broker 3 ", "none"}, {"node 1 → controller 2 ", "none"}, {"node 3 → controller 1 ", "none"},
	} {
		if !slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool {
			return strings.HasPrefix(l, line.path) && strings.HasSuffix(l, " "+line.faults)
		}) {
			t.Errorf("status lacks the path %q with faults %q:\n%s", line.path, line.faults, out)
		}
	}

	if err := syscall.Kill(c.Network.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitFor(t, 10*time.Second, func() bool {
		stdout.Reset()
		stderr.Reset()
		return runCluster(t, st, "status", "--name", faultClusterName) == exitFailure
	}) || !strings.Contains(stderr.String(), "the network proxies are dead; bring them back with: kbench cluster up --name faults") {
		t.Fatalf("status with the proxies killed: stdout %s\nstderr %s", stdout, stderr)
	}
	statePath := filepath.Join(fc.stateDir, faultClusterName, "cluster.json")
	raw, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	state["network"].(map[string]any)["command"] = []string{filepath.Join(t.TempDir(), "gone", "kbench"), "cluster", "proxies"}
	if raw, err = json.Marshal(state); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := runCluster(t, st, "up", "--name", faultClusterName); code != exitOK || !strings.Contains(stderr.String(), "start the network proxies") {
		t.Fatalf("up with the proxies dead: exit %d\n%s", code, stderr)
	}
	stdout.Reset()
	if code := runCluster(t, st, "status", "--name", faultClusterName); code != exitOK || strings.Contains(stdout.String(), "delay") {
		t.Fatalf("status after up: exit %d (want 0, and no fault on the new proxies)\n%s%s", code, stdout, stderr)
	}
}

// clusterBrokerActions: regression: a cluster from `cluster up` could not
// be broken and mended by hand: after one broker was killed, `up` refused
// to start it again, `status` could show brokers dead while they served.
// Now `cluster kill|stop|pause|resume|restart --broker N` act on it,
// status says what each broker is, `up` brings back the brokers that are
// down (with the same bootstrap, --port-base kept), and status finds the
// brokers by their configs when the recorded PIDs are not theirs.
func clusterBrokerActions(t *testing.T, fc *faultCluster) {
	st, stdout, stderr := fc.state(t)
	states := func() []string {
		t.Helper()
		stdout.Reset()
		runCluster(t, st, "status", "--name", faultClusterName)
		var out []string
		for _, line := range strings.Split(stdout.String(), "\n") {
			if f := strings.Fields(line); len(f) >= 5 && f[0] >= "1" && f[0] <= "3" && len(f[0]) == 1 {
				out = append(out, f[4])
			}
		}
		return out
	}
	act := func(action, broker string, wantCode int) {
		t.Helper()
		stderr.Reset()
		if code := runCluster(t, st, action, "--name", faultClusterName, "--broker", broker); code != wantCode {
			t.Fatalf("%s --broker %s: exit %d, want %d\n%s", action, broker, code, wantCode, stderr)
		}
	}
	act("kill", "2", exitOK)
	act("stop", "3", exitOK)
	act("pause", "1", exitOK)
	if got := strings.Join(states(), " "); got != "paused killed stopped" {
		t.Errorf("status after pause 1, kill 2, stop 3: %q", got)
	}
	act("kill", "2", exitUsage) // not running: says how to start it
	if !strings.Contains(stderr.String(), "kbench cluster restart --name faults --broker 2") {
		t.Errorf("kill of a killed broker: %s", stderr)
	}
	act("resume", "1", exitOK)
	act("restart", "3", exitOK)
	stdout.Reset()
	stderr.Reset()
	if code := runCluster(t, st, "up", "--name", faultClusterName); code != exitOK {
		t.Fatalf("up of a cluster running in part: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "start broker 2") {
		t.Errorf("up of a cluster running in part: %s", stderr)
	}
	if last := lastLine(stdout.String()); last != "bootstrap.servers="+fc.bootstrap {
		t.Errorf("up of a cluster running in part: %q, want the same bootstrap %q", last, fc.bootstrap)
	}
	if got := strings.Join(states(), " "); got != "up up up" {
		t.Errorf("status after up: %q", got)
	}
	// The state as another process may leave it: PIDs that are not the
	// brokers'. Status finds the brokers by their configs.
	path := filepath.Join(fc.stateDir, faultClusterName, "cluster.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	saved := bytes.Clone(raw)
	for _, b := range fc.load(t).Brokers {
		raw = bytes.Replace(raw, []byte(fmt.Sprintf(`"pid": %d,`, b.PID)), []byte(`"pid": 1,`), 1)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(states(), " "); got != "up up up" {
		t.Errorf("status with stale PIDs: %q", got)
	}
	if err := os.WriteFile(path, saved, 0o644); err != nil {
		t.Fatal(err)
	}
}

// producerErrors lists each producing workload's error counts by kind, to
// say why a run failed.
func producerErrors(doc *result.Document) string {
	if doc == nil || doc.Plan == nil {
		return "no result"
	}
	var out []string
	for _, sc := range doc.Plan.Scenarios {
		for _, rep := range sc.Repeats {
			for _, w := range rep.Workloads {
				if w.Producer != nil && len(w.Producer.Errors) > 0 {
					out = append(out, fmt.Sprintf("%s repeat %d %s: %v", sc.Name, rep.Index, w.Name, w.Producer.Errors))
				}
			}
		}
	}
	return strings.Join(out, "; ")
}

// leftoverFaultsRefused: regression: network faults left on the proxies by
// a run killed with kill -9 outlived it: `cluster status` exited 0 without
// a word and the next plan measured through them. Status now fails naming
// them, a plan refuses to run through them, `cluster heal` clears them;
// while a run holds the cluster they are its own (status says whose,
// heal refuses), and a second plan on the cluster is refused.
func leftoverFaultsRefused(t *testing.T, fc *faultCluster) {
	st, stdout, stderr := fc.state(t)
	c := fc.load(t)
	link, err := c.Link(cluster.Brokers(1), cluster.Brokers(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := link.Bandwidth(t.Context(), 5000); err != nil {
		t.Fatal(err)
	}
	if code := runCluster(t, st, "status", "--name", faultClusterName); code != exitFailure ||
		!strings.Contains(stderr.String(), "2 path(s) have network faults no run owns") || !strings.Contains(stderr.String(), "kbench cluster heal --name faults") {
		t.Errorf("status with faults no run owns: exit %d\n%s", code, stderr)
	}
	plan := "name: leftover\ncluster: {name: faults}\ntopics: [{name: left, partitions: 1}]\nworkloads: [{name: w, type: produce, topic: left, message: {size: 10}, records: 10}]\n"
	planFile := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(planFile, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := runKbench(t, st, "run", planFile, "--out", filepath.Join(t.TempDir(), "out")); code != exitUsage ||
		!strings.Contains(stderr.String(), "node 1 → broker 3: bandwidth") || !strings.Contains(stderr.String(), "kbench cluster heal --name faults") {
		t.Errorf("a plan on the cluster: exit %d, want %d naming the faults\n%s", code, exitUsage, stderr)
	}

	// A run holds the cluster: its faults are its own, and a second plan
	// waits its turn.
	unlock, err := outfile.Lock(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := runCluster(t, st, "heal", "--name", faultClusterName); code != exitUsage || !strings.Contains(stderr.String(), "is in use by the kbench run in process") {
		t.Errorf("heal while a run holds the cluster: exit %d\n%s", code, stderr)
	}
	stderr.Reset()
	if code := runKbench(t, st, "run", planFile, "--out", filepath.Join(t.TempDir(), "out")); code != exitUsage || !strings.Contains(stderr.String(), `cluster "faults" is in use by another kbench run (process`) {
		t.Errorf("a second plan on the cluster: exit %d\n%s", code, stderr)
	}
	unlock()

	stderr.Reset()
	if code := runCluster(t, st, "heal", "--name", faultClusterName); code != exitOK || !strings.Contains(stderr.String(), "cleared the network faults of 2 path(s)") {
		t.Errorf("heal: exit %d\n%s", code, stderr)
	}
	stdout.Reset()
	if code := runCluster(t, st, "status", "--name", faultClusterName); code != exitOK || strings.Contains(stdout.String(), "bandwidth") {
		t.Errorf("status after heal: exit %d\n%s", code, stdout)
	}
}

// clusterClean: `kbench cluster clean` deletes every topic and group runs
// left (Kafka's internal topics kept), so that the next study's faults do
// not recover partitions nobody measures.
func clusterClean(t *testing.T, fc *faultCluster) {
	testkafka.Topic(t, strings.Split(fc.bootstrap, ",")[0], "left-over", 6, 10, 10)
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(fc.bootstrap, ",")...), kgo.ConsumerGroup("left-over-group"), kgo.ConsumeTopics("left-over"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for read := 0; read < 10; {
		read += cl.PollFetches(ctx).NumRecords()
		if ctx.Err() != nil {
			t.Fatal("the group read nothing")
		}
	}
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	cl.Close() // leaves the group, which stays with its offsets
	st, stdout, stderr := fc.state(t)
	if code := runCluster(t, st, "clean", "--name", faultClusterName); code != exitOK ||
		!strings.Contains(stdout.String(), "topic left-over\n") || !strings.Contains(stdout.String(), "group left-over-group\n") {
		t.Fatalf("clean: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	admCl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(fc.bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	topics, err := kadm.NewClient(admCl).ListTopics(ctx)
	if err != nil || len(topics) != 0 {
		t.Errorf("after clean: topics %v (%v); want none", topics.Names(), err)
	}
}

// freePortBase finds a base whose n ports in a row are free on 127.0.0.1
// now.
func freePortBase(t *testing.T, n int) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		base := 20000 + rand.IntN(40000)
		free := true
		for p := base; p < base+n && free; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				free = false
				continue
			}
			l.Close()
		}
		if free {
			return base
		}
	}
	t.Fatalf("no %d free ports in a row", n)
	return 0
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// runFaultPlan runs a plan on the shared cluster (its text names it:
// cluster: {name: faults}) through the command line, and returns its
// result, stderr and the results folder, checking the summary has the
// faults and the verification tables.
func (fc *faultCluster) runPlan(t *testing.T, text string, args ...string) (*result.Document, string, string) {
	t.Helper()
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return fc.runPlanFile(t, planFile, args...)
}

func (fc *faultCluster) runPlanFile(t *testing.T, planFile string, args ...string) (*result.Document, string, string) {
	t.Helper()
	st, _, stderr := fc.state(t)
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	code := run(ctx, append([]string{"kbench", "run", planFile, "--out", out}, args...), st)
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s\nerrors: %s", code, stderr, producerErrors(doc))
	}
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	verified := false
	for _, sc := range doc.Plan.Scenarios {
		for _, rep := range sc.Repeats {
			verified = verified || len(rep.Verification) > 0
		}
	}
	if err != nil || !strings.Contains(string(md), "## Faults") || (verified && !strings.Contains(string(md), "## Verification")) {
		t.Errorf("summary.md lacks the faults or the verification table (%v):\n%s", err, md)
	}
	if !strings.Contains(stderr.String(), `running on the local cluster "faults" (3 broker(s))`) {
		t.Errorf("stderr does not say which cluster it ran on:\n%s", stderr)
	}
	return doc, stderr.String(), out
}
