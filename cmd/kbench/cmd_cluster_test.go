package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/testkafka"
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
		{"advertise every address", []string{"up", "--advertise-host", "0.0.0.0"}, exitUsage,
			`cluster up: --advertise-host "0.0.0.0": is every address, which no client can connect to`},
		{"advertise with network faults", []string{"up", "--network-faults", "--advertise-host", "10.77.0.1"}, exitUsage,
			`cluster up: --advertise-host "10.77.0.1": not with --network-faults`},
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

// TestClusterStatusRegistryDead: a cluster whose brokers all run and
// answer, and whose schema registry is dead, fails status (exit 1) saying
// how to bring the registry back. The broker is a process whose command
// line ends with its config, as a broker's does, answering on kfake.
func TestClusterStatusRegistryDead(t *testing.T) {
	t.Parallel()
	addr := testkafka.Fake(t)
	_, port, _ := net.SplitHostPort(addr)
	st, stdout, stderr := hostileState()
	st.stateDir = t.TempDir()
	dir := filepath.Join(st.stateDir, "reg")
	cfg := filepath.Join(dir, "broker-1", "server.properties")
	must(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
	must(t, os.WriteFile(cfg, nil, 0o600))
	broker := exec.Command("sh", "-c", "sleep 600; :", "kafka.Kafka", cfg)
	must(t, broker.Start())
	t.Cleanup(func() { _ = broker.Process.Kill(); _ = broker.Wait() })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	_, deadPort, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	dead := exec.Command("true")
	must(t, dead.Run()) // a PID that ran and is gone
	state := fmt.Sprintf(`{"name": "reg", "version": "4.1.0", "dir": %q, "brokers": [{"id": 1, "pid": %d, "port": %s, "config_path": %q}],
		"schema_registry": {"version": "3.0.9", "pid": %d, "port": %s, "dir": %q, "log_path": %q}}`,
		dir, broker.Process.Pid, port, cfg, dead.Process.Pid, deadPort, filepath.Join(dir, "registry"), filepath.Join(dir, "registry", "registry.log"))
	must(t, os.WriteFile(filepath.Join(dir, "cluster.json"), []byte(state), 0o600))
	code := runKbench(t, st, "cluster", "status", "--name", "reg")
	want := "kbench: cluster status: the schema registry is dead; bring it back (empty) with: kbench cluster up --name reg --schema-registry"
	if code != exitFailure || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, exitFailure, want, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), "schema registry: dead") || !strings.Contains(stdout.String(), "up") {
		t.Errorf("stdout:\n%s", stdout)
	}
}
