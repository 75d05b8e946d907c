package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunWorkersBadInput: a distributed run's flags are checked before
// anything reaches a cluster: each mistake exits 2 naming the flag (or the
// environment variable, or the plan field) and how to fix it.
func TestRunWorkersBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const workloads = `
workloads:
  - name: producer
    type: produce
    topic: t
    clients: 3
    message: {size: 100}
    rate: 100
    duration: 5s
`
	named := write("named.yaml", "name: w\ncluster:\n  bootstrap: 127.0.0.1:1\n"+workloads)
	local := write("local.yaml", "name: w\n"+workloads)
	backlog := write("backlog.yaml", "name: w\ncluster:\n  bootstrap: 127.0.0.1:1\n"+workloads+`  - name: reader
    type: consume
    topic: t
    backlog: 1MB
`)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{name: "index out of range", args: []string{named, "--workers", "3", "--worker-index", "3", "--run-id", "r1"}, want: "--worker-index 3 is out of range: with --workers 3 give 0 to 2"},
		{name: "index not a number", args: []string{named, "--workers", "3", "--worker-index", "one", "--run-id", "r1"}, want: `--worker-index "one": not a whole number`},
		{name: "index from the Job out of range", env: map[string]string{envWorkerIndex: "5"}, args: []string{named, "--workers", "3", "--run-id", "r1"}, want: "JOB_COMPLETION_INDEX 5 is out of range: with --workers 3 give 0 to 2"},
		{name: "no index", args: []string{named, "--workers", "3", "--run-id", "r1"}, want: "give this worker's index with --worker-index I (0 to 2), or set JOB_COMPLETION_INDEX"},
		{name: "no run id", args: []string{named, "--workers", "3", "--worker-index", "0"}, want: "give the run an id every worker shares with --run-id ID (or KBENCH_RUN_ID)"},
		{name: "bad run id", args: []string{named, "--workers", "3", "--worker-index", "0", "--run-id", "a/b"}, want: `--run-id "a/b": use letters, digits`},
		{name: "bad run id from the Job", env: map[string]string{envRunID: "a b"}, args: []string{named, "--workers", "3", "--worker-index", "0"}, want: `KBENCH_RUN_ID: --run-id "a b"`},
		{name: "index without workers", args: []string{named, "--worker-index", "0"}, want: "--worker-index, --run-id and --keep-control need --workers N"},
		{name: "negative workers", args: []string{named, "--workers", "-2", "--worker-index", "0", "--run-id", "r1"}, want: "--workers -2: give how many kbench processes run the plan"},
		// --workers 0 was called missing, and alone ran the plan in one process.
		{name: "zero workers", args: []string{named, "--workers", "0", "--worker-index", "0", "--run-id", "r1"}, want: "--workers 0: give how many kbench processes run the plan, 1 or more"},
		{name: "zero workers alone", args: []string{named, "--workers", "0"}, want: "--workers 0: give how many kbench processes run the plan, 1 or more"},
		{name: "a local cluster", args: []string{local, "--workers", "3", "--worker-index", "0", "--run-id", "r1"}, want: "a local cluster that one worker starts cannot be reached by the others; give the cluster every worker reaches: --set cluster.bootstrap=HOST:PORT"},
		{name: "backlog", args: []string{backlog, "--workers", "2", "--worker-index", "0", "--run-id", "r1"}, want: "workload reader: backlog cannot run with --workers 2 yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			st := &state{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return tt.env[k] }}
			code := runKbench(t, st, append([]string{"run"}, append(tt.args, "--out", filepath.Join(t.TempDir(), "out"))...)...)
			if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, exitUsage, tt.want, stderr.String())
			}
		})
	}
}
