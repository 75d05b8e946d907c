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

	"github.com/kbench/kbench/internal/cluster"
)

// clusterTestState shares the user's jar cache (fetched once per machine)
// but keeps clusters in a temp dir, so tests never touch a user's cluster.
func clusterTestState(t *testing.T) (*state, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "JAVA_HOME" || k == "KBENCH_HOME" {
			return os.Getenv(k)
		}
		return ""
	}
	return &state{stdout: &stdout, stderr: &stderr, getenv: getenv,
		cacheDir: defaultCacheDir(getenv), stateDir: t.TempDir()}, &stdout, &stderr
}

func runCluster(t *testing.T, st *state, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return run(ctx, append([]string{"kbench", "cluster"}, args...), st)
}

func TestClusterCmdErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"zero brokers", []string{"up", "--brokers", "0"}, exitUsage, `--brokers "0": must be between 1 and 9`},
		{"bad heap", []string{"up", "--heap", "1x"}, exitUsage, `--heap "1x": want a size like 512m or 1g`},
		{"bad name", []string{"up", "--name", "a/b"}, exitUsage, `--name "a/b": '/' is not allowed: it separates folders`},
		// Regression: ".." was refused with a list of allowed characters it
		// was made of.
		{"parent folder name", []string{"up", "--name", ".."}, exitUsage, `--name "..": ".." is not allowed: it names the parent folder`},
		// Regression: a 128m broker died of OutOfMemoryError; the heap was accepted.
		{"heap too small", []string{"up", "--heap", "128m"}, exitUsage, `--heap "128m": at least 256m`},
		// Regression: the error named --start-timeout, a flag cluster up does not have.
		{"zero timeout", []string{"up", "--timeout", "0s"}, exitUsage, `cluster up: --timeout "0s": must be positive`},
		{"unknown flag", []string{"up", "--broker", "3"}, exitUsage, "unknown flag: --broker"},
		{"port base too high for the proxies", []string{"up", "--network-faults", "--port-base", "65500"}, exitUsage,
			`cluster up: --port-base "65500": must be at most 65496 with network faults`},
		{"down unknown", []string{"down", "--name", "nope"}, exitUsage, `no cluster named "nope" (known: none`},
		{"status unknown", []string{"status", "--name", "nope"}, exitUsage, `no cluster named "nope"`},
		{"unknown subcommand", []string{"upp"}, exitUsage, `unknown command "upp"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, stdout, stderr := clusterTestState(t)
			code := runCluster(t, st, tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr.String(), tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tt.wantCode, tt.wantErr)
			}
			if stdout.Len() != 0 {
				t.Fatalf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}

func TestClusterCmdUpStatusDown(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: starts a real Kafka broker")
	}
	st, stdout, stderr := clusterTestState(t)
	if code := runCluster(t, st, "up", "--name", "cli", "--heap", "512m"); code != exitOK {
		t.Fatalf("up: exit %d\n%s", code, stderr)
	}
	// Cleanup first registered runs last: it stops the broker if a check below fails.
	t.Cleanup(func() { runCluster(t, st, "down", "--name", "cli") })
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "bootstrap.servers=127.0.0.1:") {
		t.Fatalf("last stdout line %q, want bootstrap.servers=127.0.0.1:PORT", last)
	}

	stdout.Reset()
	if code := runCluster(t, st, "status", "--name", "cli"); code != exitOK {
		t.Fatalf("status: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"BROKER", "CONTROLLER", " up ", "server.log", last} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("status output lacks %q:\n%s", want, stdout)
		}
	}

	stderr.Reset()
	if code := runCluster(t, st, "up", "--name", "cli"); code != exitUsage || !strings.Contains(stderr.String(), "already running") {
		t.Errorf("second up: exit %d, stderr %q; want exit 2 and 'already running'", code, stderr)
	}

	if code := runCluster(t, st, "down", "--name", "cli"); code != exitOK {
		t.Fatalf("down: exit %d\n%s", code, stderr)
	}
	stderr.Reset()
	if code := runCluster(t, st, "down", "--name", "cli"); code == exitOK || !strings.Contains(stderr.String(), `no cluster named "cli"`) {
		t.Fatalf("down twice: exit %d, stderr %q; want an error", code, stderr)
	}
}

func TestClusterCmdClasspath(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("may fetch the Kafka jars with Maven")
	}
	st, stdout, stderr := clusterTestState(t)
	if code := runCluster(t, st, "classpath"); code != exitOK {
		t.Fatalf("classpath: exit %d\n%s", code, stderr)
	}
	if cp := strings.TrimSpace(stdout.String()); !strings.HasSuffix(cp, "/kafka/"+cluster.DefaultVersion+"/libs/*") {
		t.Fatalf("classpath %q, want .../kafka/%s/libs/*", cp, cluster.DefaultVersion)
	}
}

// freePortBase finds a base whose 30 ports (clients, controllers, internal
// listeners) are free on 127.0.0.1 now.
func freePortBase(t *testing.T) int {
	t.Helper()
	for try := 0; try < 50; try++ {
		base := 20000 + rand.IntN(40000)
		free := true
		for p := base; p < base+30 && free; p++ {
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
	t.Fatal("no 30 free ports in a row")
	return 0
}

// TestClusterCmdBrokerActions: regression: a cluster from `cluster up`
// could not be broken and mended by hand: after one broker was killed, `up`
// refused to start it again, `status` could show brokers dead while they
// served, and `down` could leave JVMs running with their data deleted.
// Now `cluster kill|stop|pause|resume|restart --broker N` act on it, status
// says what each broker is, `up` brings back the brokers that are down,
// `down` stops every process of the cluster, and --port-base keeps the
// bootstrap from one `up` to the next.
func TestClusterCmdBrokerActions(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: starts a real 3-broker Kafka cluster")
	}
	st, stdout, stderr := clusterTestState(t)
	base := freePortBase(t)
	want := fmt.Sprintf("bootstrap.servers=127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d", base, base+1, base+2)
	up := func() {
		t.Helper()
		stdout.Reset()
		if code := runCluster(t, st, "up", "--name", "hand", "--brokers", "3", "--heap", "512m", "--port-base", strconv.Itoa(base)); code != exitOK {
			t.Fatalf("up: exit %d\n%s", code, stderr)
		}
		if last := lastLine(stdout.String()); last != want {
			t.Fatalf("up: %q, want %q", last, want)
		}
	}
	up()
	t.Cleanup(func() { runCluster(t, st, "down", "--name", "hand") })
	// status's STATE column, by broker.
	states := func() []string {
		t.Helper()
		stdout.Reset()
		runCluster(t, st, "status", "--name", "hand")
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
		if code := runCluster(t, st, action, "--name", "hand", "--broker", broker); code != wantCode {
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
	if !strings.Contains(stderr.String(), "kbench cluster restart --name hand --broker 2") {
		t.Errorf("kill of a killed broker: %s", stderr)
	}
	act("resume", "1", exitOK)
	act("restart", "3", exitOK)
	// up brings back what is down (broker 2), with its data.
	stderr.Reset()
	up()
	if !strings.Contains(stderr.String(), "start broker 2") {
		t.Errorf("up of a cluster running in part: %s", stderr)
	}
	if got := strings.Join(states(), " "); got != "up up up" {
		t.Errorf("status after up: %q", got)
	}
	// The state as another process may leave it: PIDs that are not the
	// brokers'. Status and down find the brokers by their configs.
	path := filepath.Join(clusterStateDir(st), "hand", "cluster.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Load(clusterStateDir(st), "hand")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range c.Brokers {
		raw = bytes.Replace(raw, []byte(fmt.Sprintf(`"pid": %d,`, b.PID)), []byte(`"pid": 1,`), 1)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(states(), " "); got != "up up up" {
		t.Errorf("status with stale PIDs: %q", got)
	}
	if code := runCluster(t, st, "down", "--name", "hand"); code != exitOK {
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
	up() // the same bootstrap again
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestClusterCmdNetworkFaults: `cluster up --network-faults` runs every
// path through proxies, `status` lists them with the faults another
// process set on them, a dead proxy process fails status and `up` brings
// it back, and `down` stops it.
func TestClusterCmdNetworkFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: starts a real 2-broker Kafka cluster")
	}
	st, stdout, stderr := clusterTestState(t)
	if code := runCluster(t, st, "up", "--name", "nf", "--brokers", "2", "--heap", "512m", "--network-faults"); code != exitOK {
		t.Fatalf("up: exit %d\n%s", code, stderr)
	}
	t.Cleanup(func() { runCluster(t, st, "down", "--name", "nf") })
	if !strings.Contains(stderr.String(), "every connection runs through the network proxies (6 paths") {
		t.Errorf("up does not say the paths run through proxies:\n%s", stderr)
	}

	// Another process (a plan's faults) sets a fault through the API.
	c, err := cluster.Load(clusterStateDir(st), "nf")
	if err != nil {
		t.Fatal(err)
	}
	link, err := c.Link(cluster.Brokers(1), cluster.Brokers(2))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := link.Delay(ctx, 20*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := runCluster(t, st, "status", "--name", "nf"); code != exitOK {
		t.Fatalf("status: exit %d\n%s%s", code, stdout, stderr)
	}
	out := stdout.String()
	for _, want := range []string{"network proxies: up (pid ", "PATH", "FAULTS"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	for _, line := range []struct{ path, faults string }{
		{"clients → broker 1 ", "none"}, {"clients → broker 2 ", "none"},
		{"node 1 → broker 2 ", "delay 20ms"}, {"node 2 → broker 1 ", "delay 20ms"},
		{"node 1 → controller 2 ", "none"}, {"node 2 → controller 1 ", "none"},
	} {
		if !slices.ContainsFunc(strings.Split(out, "\n"), func(l string) bool {
			return strings.HasPrefix(l, line.path) && strings.HasSuffix(l, " "+line.faults)
		}) {
			t.Errorf("status lacks the path %q with faults %q:\n%s", line.path, line.faults, out)
		}
	}

	// The proxy process dies: status fails saying so; up brings it back.
	if err := syscall.Kill(c.Network.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !waitFor(t, 10*time.Second, func() bool {
		stdout.Reset()
		stderr.Reset()
		return runCluster(t, st, "status", "--name", "nf") == exitFailure
	}) || !strings.Contains(stderr.String(), "the network proxies are dead; bring them back with: kbench cluster up --name nf") {
		t.Fatalf("status with the proxies killed: stdout %s\nstderr %s", stdout, stderr)
	}
	// Regression: up started the proxies with the executable recorded when
	// the cluster was made, which may be gone (a test binary, a moved kbench).
	statePath := filepath.Join(clusterStateDir(st), "nf", "cluster.json")
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
	if code := runCluster(t, st, "up", "--name", "nf"); code != exitOK || !strings.Contains(stderr.String(), "start the network proxies") {
		t.Fatalf("up with the proxies dead: exit %d\n%s", code, stderr)
	}
	stdout.Reset()
	if code := runCluster(t, st, "status", "--name", "nf"); code != exitOK || strings.Contains(stdout.String(), "delay") {
		t.Fatalf("status after up: exit %d (want 0, and no fault on the new proxies)\n%s%s", code, stdout, stderr)
	}
	if code := runCluster(t, st, "down", "--name", "nf"); code != exitOK {
		t.Fatalf("down: exit %d\n%s", code, stderr)
	}
	if c, err := cluster.Load(clusterStateDir(st), "nf"); err == nil {
		t.Errorf("down kept the cluster's state: %+v", c.Network)
	}
}
