package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/outfile"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/study"
	"github.com/kbench/kbench/internal/testkafka"
)

// buildKbench builds the kbench binary once per test binary, for tests that
// measure the process (its memory) or signal it.
var buildKbench = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "kbench-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "kbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", errors.New(string(out))
	}
	return bin, nil
})

// kbenchBin is buildKbench's binary; the test fails when it does not
// build.
func kbenchBin(t *testing.T) string {
	t.Helper()
	bin, err := buildKbench()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return bin
}

// endlessFIFO makes a FIFO at path fed "y\n" forever (as `yes` would) until
// the test ends.
func endlessFIFO(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		buf := bytes.Repeat([]byte("y\n"), 32<<10)
		for {
			if _, err := f.Write(buf); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		// A reader that never came: open (and close) the other end so
		// the writer's open returns and its write fails.
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
		<-done
	})
}

// TestEndlessInputs: regression: a plan, an OMB workload or driver file,
// a template, a result.json for report/compare/size --from, or a payload
// file that is a FIFO of endless data was read until the kernel's OOM
// killer came (20.9 GB once), printing nothing. Each reader now stops at
// its bound, or at the first bytes that cannot be what it reads, with an
// error naming the file; the process stays under 100 MB.
func TestEndlessInputs(t *testing.T) {
	t.Parallel()
	bin := kbenchBin(t)
	workload, driver := omb(t)
	tests := []struct {
		name string
		at   string // the FIFO's path in the test's folder; "input" if empty
		args func(fifo, dir string) []string
		want []string
	}{
		{"plan", "", func(fifo, _ string) []string { return []string{"run", fifo, "--dry-run"} },
			[]string{"larger than 16 MiB, the most kbench reads for a plan: is it the right file?"}},
		{"omb workload", "", func(fifo, _ string) []string { return []string{"run", fifo, "--omb-driver", driver, "--dry-run"} },
			[]string{"larger than 16 MiB, the most kbench reads for an OMB workload file: is it the right file?"}},
		{"omb driver", "", func(fifo, _ string) []string { return []string{"run", workload, "--omb-driver", fifo, "--dry-run"} },
			[]string{"larger than 16 MiB, the most kbench reads for an OMB driver file: is it the right file?"}},
		{"template", "", func(fifo, dir string) []string {
			return []string{"run", writePlan(t, dir, "message: {template_file: "+fifo+"}"), "--dry-run"}
		}, []string{"larger than 16 MiB, the most kbench reads for a template: is it the right file?"}},
		{"payload", "", func(fifo, dir string) []string {
			return []string{"run", writePlan(t, dir, "message: {payload_file: "+fifo+"}"), "--dry-run"}
		}, []string{"holds more than 10000000 records"}},
		{"report", "res/result.json", func(_, dir string) []string { return []string{"report", filepath.Join(dir, "res")} },
			[]string{"not a kbench result document"}},
		{"compare", "", func(fifo, _ string) []string { return []string{"compare", fifo, fifo} },
			[]string{"not a kbench result document"}},
		{"size", "", func(fifo, _ string) []string {
			return []string{"size", "--rate", "10k/s", "--record-size", "1KB", "--retention", "1d", "--from-results", fifo}
		},
			[]string{"not a kbench result document"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "input")
			if tt.at != "" {
				fifo = filepath.Join(dir, tt.at)
				must(t, os.MkdirAll(filepath.Dir(fifo), 0o755))
			}
			endlessFIFO(t, fifo)
			args := tt.args(fifo, dir)
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, args...)
			cmd.Stdout, cmd.Stderr, cmd.Dir = &stdout, &stderr, dir
			must(t, cmd.Start())
			// Before the bounds the process grew without end: stop it at
			// 300 MB rather than let it take the machine.
			// The peak is read from /proc while it runs (VmHWM, the peak
			// since exec): the rusage of a child started by a vfork counts
			// the test binary's own resident memory at the fork, which a
			// package of parallel tests makes hundreds of MB.
			stop, sampled := make(chan struct{}), make(chan struct{})
			var peakKB int64
			go func() {
				defer close(sampled)
				for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); { // a hang guard
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
					peakKB = max(peakKB, procKB(cmd.Process.Pid, "VmHWM:"))
					if rssKB(cmd.Process.Pid) > 300<<10 {
						break
					}
				}
				_ = cmd.Process.Kill()
			}()
			err := cmd.Wait()
			close(stop)
			<-sampled
			if err == nil {
				t.Fatalf("exit 0\nstdout:\n%s\nstderr:\n%s", &stdout, &stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, &stderr)
				}
			}
			if peakKB > 100<<10 {
				t.Errorf("resident memory reached %d MB, want under 100 MB", peakKB>>10)
			}
		})
	}
}

// rssKB is a process's resident memory in KiB (0 once it is gone).
func rssKB(pid int) int64 { return procKB(pid, "VmRSS:") }

// procKB is a memory figure of /proc/PID/status in KiB (0 once it is gone).
func procKB(pid int, field string) int64 {
	b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// omb writes a minimal OMB workload and Kafka driver file.
func omb(t *testing.T) (workload, driver string) {
	dir := t.TempDir()
	workload, driver = filepath.Join(dir, "workload.yaml"), filepath.Join(dir, "driver.yaml")
	must(t, os.WriteFile(filepath.Join(dir, "payload.data"), bytes.Repeat([]byte{'x'}, 100), 0o600))
	must(t, os.WriteFile(workload, []byte("name: w\ntopics: 1\npartitionsPerTopic: 1\nmessageSize: 100\npayloadFile: payload.data\nsubscriptionsPerTopic: 1\nconsumerPerSubscription: 1\nproducersPerTopic: 1\nproducerRate: 100\ntestDurationMinutes: 1\n"), 0o600))
	must(t, os.WriteFile(driver, []byte("name: Kafka\ndriverClass: io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver\nreplicationFactor: 1\ncommonConfig: |\n  bootstrap.servers=127.0.0.1:1\n"), 0o600))
	return workload, driver
}

// writePlan writes a one-workload plan into dir whose producer sends the
// message given.
func writePlan(t *testing.T, dir, message string) string {
	p := filepath.Join(dir, "plan.yaml")
	must(t, os.WriteFile(p, []byte("name: p\ncluster: {bootstrap: 127.0.0.1:1}\nworkloads:\n  - name: w\n    type: produce\n    topic: t\n    "+message+"\n    rate: 10/s\n    duration: 1s\n"), 0o600))
	return p
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hostileState is a command-line state writing to buffers.
func hostileState() (*state, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if k == "GOGC" {
			return "100"
		}
		return ""
	}
	return &state{stdout: &stdout, stderr: &stderr, getenv: getenv}, &stdout, &stderr
}

// secretDriver is an OMB Kafka driver whose properties hold secrets, in
// values and in a comment.
const secretDriver = `name: Kafka
driverClass: io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver
replicationFactor: 1
commonConfig: |
  bootstrap.servers=127.0.0.1:1
  security.protocol=SASL_SSL
  sasl.mechanism=PLAIN
  sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" \
      password="LEAK-DRIVER-1";
  # ssl.key.password=LEAK-DRIVER-2
  ssl.keystore.password=LEAK-DRIVER-3
  ssl.truststore.password : LEAK-DRIVER-4
producerConfig: |
  acks=all
  sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="LEAK-DRIVER-5";
consumerConfig: |
  auto.offset.reset=earliest
`

// TestOMBDryRunHidesDriverSecrets: regression: an OMB run's --dry-run
// printed the driver's sasl.jaas.config password and
// ssl.keystore.password, twice each, where it shows what every OMB field
// becomes (plan from-omb and the run redacted them). Dry runs are what CI
// logs keep.
func TestOMBDryRunHidesDriverSecrets(t *testing.T) {
	t.Parallel()
	workload, _ := omb(t)
	driver := filepath.Join(t.TempDir(), "driver.yaml")
	must(t, os.WriteFile(driver, []byte(secretDriver), 0o600))
	for _, args := range [][]string{
		{"run", workload, "--omb-driver", driver, "--dry-run"},
		{"run", workload, "--omb-driver", driver, "--dry-run", "--set", `driver.commonConfig.ssl\.key\.password=LEAK-SET-1`},
		{"plan", "from-omb", workload, "--omb-driver", driver},
	} {
		st, stdout, stderr := hostileState()
		code := runKbench(t, st, args...)
		out := stdout.String() + stderr.String()
		if code != exitOK && code != exitUsage {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		if !strings.Contains(out, "[redacted]") {
			t.Errorf("%v shows no [redacted] value:\n%s", args, out)
		}
		if i := strings.Index(out, "LEAK"); i >= 0 {
			t.Errorf("%v shows a secret: ...%s...", args, out[max(i-120, 0):min(i+40, len(out))])
		}
	}
}

// TestPlanCommentProseNeverWritten: regression: secrets written as prose
// in a plan's comments ("# the truststore password is LEAK8") were copied
// into plan.yaml, result.json and report.html: the keyword redaction of
// comments could not see them. The plan as run keeps no comment; no file of
// the results folder, and no output of the run, --dry-run or preview,
// holds a secret planted in a comment or a --set.
func TestPlanCommentProseNeverWritten(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	topic := uniqueTopic(t, "prose")
	planFile := filepath.Join(dir, "plan.yaml")
	must(t, os.WriteFile(planFile, []byte(`# admin login: alice / LEAK-s3cret
name: prose
cluster:
  properties:
    # pw: LEAK2
    # passwd=LEAK3
    client.id: kbench # secret LEAK5
topics: [{name: `+topic+`, partitions: 1}]
# the truststore password is LEAK8
workloads:
  - {name: p, type: produce, topic: `+topic+`, message: {size: 10}, records: 100}
`), 0o644))
	set := `cluster.properties.ssl\.truststore\.password=LEAK-SET`
	for _, args := range [][]string{
		{"run", planFile, "--out", filepath.Join(dir, "out"), "--set", "cluster.bootstrap=" + bootstrap, "--set", set},
		{"run", planFile, "--dry-run", "--set", set},
		{"preview", planFile, "--set", set},
	} {
		st, stdout, stderr := hostileState()
		if code := runKbench(t, st, args...); code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args[:2], code, stderr)
		}
		for name, text := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			if i := strings.Index(text, "LEAK"); i >= 0 {
				t.Errorf("%v: %s shows a secret: ...%s...", args[:2], name, text[max(i-80, 0):min(i+40, len(text))])
			}
		}
	}
	files := 0
	must(t, filepath.WalkDir(filepath.Join(dir, "out"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if i := strings.Index(string(b), "LEAK"); i >= 0 {
			t.Errorf("%s holds a secret: ...%s...", filepath.Base(path), b[max(i-80, 0):min(i+40, len(b))])
		}
		return nil
	}))
	if files < 5 { // result.json, summary.md, summary.csv, report.html, plan.yaml
		t.Fatalf("the run wrote %d files", files)
	}
}

// TestClusterBrokerZero: regression: `cluster kill --broker 0` said
// "--broker is missing": it was given, and names no broker.
func TestClusterBrokerZero(t *testing.T) {
	t.Parallel()
	st, _, stderr := hostileState()
	st.stateDir = t.TempDir()
	dir := filepath.Join(st.stateDir, "three")
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "cluster.json"), []byte(`{"name": "three", "dir": "`+dir+`", "brokers": [{"id": 1}, {"id": 2}, {"id": 3}]}`), 0o600))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"cluster", "kill", "--name", "three", "--broker", "0"}, `cluster kill: --broker 0: cluster "three" has brokers 1 to 3`},
		{[]string{"cluster", "kill", "--name", "three"}, `cluster kill: --broker is missing: cluster "three" has brokers 1 to 3`},
	} {
		stderr.Reset()
		if code := runKbench(t, st, tt.args...); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s", tt.args, code, exitUsage, tt.want, stderr)
		}
	}
}

// TestLocalVersionRefusedFirst: regression: --local-kafka-version 3.0.0
// announced "starting a local Apache Kafka 3.0.0" before refusing it.
func TestLocalVersionRefusedFirst(t *testing.T) {
	t.Parallel()
	st, _, stderr := hostileState()
	st.cacheDir = t.TempDir()
	code := runKbench(t, st, "producer-perf-test", "--local", "--local-kafka-version", "3.0.0", "--topic", "t",
		"--num-records", "10", "--record-size", "10", "--throughput", "-1")
	if code != exitUsage || !strings.Contains(stderr.String(), `--local-kafka-version "3.0.0": only Apache Kafka 4.x`) || strings.Contains(stderr.String(), "starting") {
		t.Fatalf("exit %d, want %d, a refusal and no start:\n%s", code, exitUsage, stderr)
	}
}

// TestReportCutOffRun: regression: `kbench report` on a results folder
// whose run was killed (kill -9) between repeats said "Status: running".
// With no process holding the folder it says "cut off"; while its run
// holds the folder, still "running".
func TestReportCutOffRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := result.Scenario{Index: 1, Name: "s", Repeats: []result.Repeat{{Index: 1, Status: result.StatusOK,
		StartedAt: time.Unix(0, 0).UTC(), EndedAt: time.Unix(1, 0).UTC(),
		Workloads: []result.Workload{{Name: "p", Type: "produce", Producer: &result.Producer{Records: 1}}}}}}
	doc := result.New(result.KindPlan, "test", time.Unix(0, 0).UTC(), nil)
	doc.Status = study.StatusRunning
	doc.Plan = &result.PlanRun{Name: "cut", Repeat: 2, Scenarios: []result.Scenario{sc}}
	must(t, result.Write(filepath.Join(dir, "result.json"), doc))
	// A lock file left by the killed run, which no process holds.
	must(t, os.WriteFile(filepath.Join(dir, outfile.LockName), []byte("999999\n"), 0o644))
	status := func() string {
		st, _, stderr := hostileState()
		if code := runKbench(t, st, "report", dir); code != exitOK {
			t.Fatalf("report: exit %d\n%s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		must(t, err)
		return string(b)
	}
	if s := status(); !strings.Contains(s, "Status: cut off (the run ended before it finished, its process killed or its machine stopped; the results are the repeats it finished).") {
		t.Errorf("summary.md of a killed run:\n%s", s)
	}
	unlock, err := outfile.Lock(dir)
	must(t, err)
	defer unlock()
	if s := status(); !strings.Contains(s, "Status: running.") {
		t.Errorf("summary.md of a run going on:\n%s", s)
	}
}

// TestDryRunSaysLateFault: regression: a fault due after its scenario
// stops sending got no warning in --dry-run, though docs/faults.md promises
// one with file:line:column (the plan check made it; CheckPlan left the
// plan's own warnings out).
func TestDryRunSaysLateFault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	planFile := filepath.Join(dir, "late.yaml")
	must(t, os.WriteFile(planFile, []byte(`name: late
cluster: {local: {brokers: 3}}
topics: [{name: t, partitions: 3, replication: 3}]
workloads:
  - {name: w, type: produce, topic: t, message: {size: 10}, rate: 10/s, duration: 10s}
faults:
  - {action: kill, target: {broker: 1}, at: 30s}
`), 0o644))
	st, _, stderr := hostileState()
	if code := runKbench(t, st, "run", planFile, "--dry-run"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := planFile + `:7:45: faults[0]: is due at 30s, but scenario "late" stops sending at 10s: it will not happen`
	if !strings.Contains(stderr.String(), "kbench: warning: "+want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestDryRunChecksNamedCluster: regression: --dry-run passed what the run
// refuses at once from the named cluster's state file: a broker the
// cluster lacks ({broker: 7} of 3, a link to broker 99) and a cluster.name
// that does not exist.
func TestDryRunChecksNamedCluster(t *testing.T) {
	t.Parallel()
	st, _, stderr := hostileState()
	st.stateDir = t.TempDir()
	dir := filepath.Join(st.stateDir, "three")
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "cluster.json"), []byte(`{"name": "three", "dir": "`+dir+`", "brokers": [{"id": 1}, {"id": 2}, {"id": 3}]}`), 0o600))
	planFile := filepath.Join(t.TempDir(), "named.yaml")
	write := func(name, fault string) {
		must(t, os.WriteFile(planFile, []byte(`name: named
cluster: {name: `+name+`}
topics: [{name: t, partitions: 3, replication: 3}]
workloads:
  - {name: w, type: produce, topic: t, message: {size: 10}, rate: 10/s, duration: 60s}
faults:
  - `+fault+`
`), 0o644))
	}
	for _, tt := range []struct{ name, fault, want string }{
		{"three", "{action: kill, target: {broker: 7}, at: 5s}", `cluster "three" has brokers 1 to 3, not 7`},
		{"three", "{action: delay, between: [{broker: 1}, {broker: 99}], latency: 5ms, at: 5s, duration: 5s}", `cluster "three" has brokers 1 to 3, not 99`},
		{"nosuch", "{action: kill, target: {broker: 1}, at: 5s}", `no local cluster named "nosuch" (known: three)`},
	} {
		write(tt.name, tt.fault)
		stderr.Reset()
		if code := runKbench(t, st, "run", planFile, "--dry-run"); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%s: exit %d, want %d and %q:\n%s", tt.fault, code, exitUsage, tt.want, stderr)
		}
	}
	write("three", "{action: kill, target: {broker: 3}, at: 5s}")
	stderr.Reset()
	if code := runKbench(t, st, "run", planFile, "--dry-run"); code != exitOK {
		t.Errorf("a good plan: exit %d\n%s", code, stderr)
	}
}

// waitsForWriter reports whether a thread of process pid waits in open
// for a FIFO's writer (Linux: /proc/PID/task/*/wchan).
func waitsForWriter(pid int) bool {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
	for _, w := range tasks {
		if b, _ := os.ReadFile(w); string(b) == "wait_for_partner" {
			return true
		}
	}
	return false
}

// TestFIFOWithNoWriterInterrupts: regression: a plan or a schema_file that
// was a FIFO with no writer hung kbench run --dry-run in open, and Ctrl-C
// did nothing (the second one ended it, 3 s later). The first Ctrl-C now
// ends the reading: "interrupted", exit 130.
func TestFIFOWithNoWriterInterrupts(t *testing.T) {
	t.Parallel()
	bin := kbenchBin(t)
	schemaPlan := func(fifo string) string {
		return "message:\n      format: avro\n      schema_file: " + fifo + "\n      template: {id: {_type: uuid}}"
	}
	for _, tt := range []struct {
		name string
		args func(fifo, dir string) []string
	}{
		{"plan", func(fifo, _ string) []string { return []string{"run", fifo, "--dry-run"} }},
		{"schema_file", func(fifo, dir string) []string {
			p := writePlan(t, dir, schemaPlan(fifo))
			return []string{"run", p, "--dry-run", "--set", "schema_registry.schema\\.registry\\.url=http://127.0.0.1:1"}
		}},
		{"template_file", func(fifo, dir string) []string {
			return []string{"preview", writePlan(t, dir, "message: {template_file: "+fifo+"}")}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fifo := filepath.Join(dir, "input")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, tt.args(fifo, dir)...)
			cmd.Stdout, cmd.Stderr, cmd.Dir = &stdout, &stderr, dir
			must(t, cmd.Start())
			for deadline := time.Now().Add(30 * time.Second); !waitsForWriter(cmd.Process.Pid); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
					t.Fatalf("kbench never opened the FIFO\nstderr:\n%s", &stderr)
				}
			}
			start := time.Now()
			must(t, cmd.Process.Signal(os.Interrupt))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("still running 20 s after Ctrl-C\nstderr:\n%s", &stderr)
			}
			hangGuard(t, time.Since(start), 10*time.Second, "Ctrl-C while kbench waits for a FIFO's writer")
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "kbench: interrupted") {
				t.Errorf("exit %v, want %d and \"kbench: interrupted\"\nstderr:\n%s", err, exitInterrupted, &stderr)
			}
		})
	}
}

// TestOverwriteRunKilled: regression: kill -9 during an --overwrite run
// left the folder with neither the earlier run's results (removed before
// the run) nor the new run's. The earlier set waits aside until the new
// one is written; report says where it is.
func TestOverwriteRunKilled(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	topic := uniqueTopic(t, "overwrite")
	planFile := filepath.Join(dir, "plan.yaml")
	writePlan := func(description, duration string) {
		must(t, os.WriteFile(planFile, []byte(`name: overwrite
description: `+description+`
repeat: 3
cluster: {bootstrap: `+bootstrap+`}
topics: [{name: `+topic+`, partitions: 1}]
workloads:
  - {name: w, type: produce, topic: `+topic+`, message: {size: 10}, rate: 200/s, duration: `+duration+`}
`), 0o644))
	}
	out := filepath.Join(dir, "out")
	writePlan("first", "1s")
	st, _, stderr := hostileState()
	if code := runKbench(t, st, "run", planFile, "--out", out); code != exitOK {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}

	writePlan("second", "5s")
	cmd := exec.Command(kbenchBin(t), "run", planFile, "--out", out, "--overwrite")
	killed := &syncBuffer{}
	cmd.Stderr = killed
	must(t, cmd.Start())
	defer cmd.Process.Kill()
	if !waitFor(t, 2*time.Minute, func() bool {
		doc, err := result.Read(filepath.Join(out, "result.json"))
		return err == nil && doc.Plan != nil && doc.Plan.Description == "second" && len(doc.Plan.Scenarios) > 0 && len(doc.Plan.Scenarios[0].Repeats) > 0
	}) {
		t.Fatalf("the second run never wrote its first repeat:\n%s", killed)
	}
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	earlier, err := result.Read(filepath.Join(out, study.EarlierRunDir, "result.json"))
	if err != nil || earlier.Plan.Description != "first" {
		t.Fatalf("the earlier run's results after the kill: %v %+v\nstderr of the killed run:\n%s", err, earlier, killed)
	}
	st, _, stderr = hostileState()
	if code := runKbench(t, st, "report", out); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.md"))
	must(t, err)
	if want := "are kept in " + filepath.Join(out, study.EarlierRunDir); !strings.Contains(string(b), want) {
		t.Errorf("summary.md of the killed run lacks %q:\n%s", want, b)
	}
}

// TestDryRunSaysHowTransactionsAreVerified: a transactional producer's
// topic is read back as a read_committed consumer reads it, and the dry
// run says so (transactional producers were refused verification before).
func TestDryRunSaysHowTransactionsAreVerified(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	planFile := filepath.Join(dir, "tx.yaml")
	must(t, os.WriteFile(planFile, []byte(`name: tx
cluster: {bootstrap: 127.0.0.1:9}
topics: [{name: t, partitions: 3, replication: 1}]
workloads:
  - {name: plain, type: produce, topic: t, message: {size: 10}, rate: 10/s, duration: 10s, verify: true}
  - {name: txw, type: produce, topic: t, message: {size: 10}, rate: 10/s, duration: 10s, verify: true,
     transaction: {records: 100, abort_ratio: 0.3}}
  - {name: committed, type: consume, topic: t, properties: {isolation.level: read_committed}}
  - {name: all, type: consume, topic: t}
`), 0o644))
	st, stdout, stderr := hostileState()
	if code := runKbench(t, st, "run", planFile, "--dry-run"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"verified after each repeat (read back from the start): plain, txw (as a read_committed consumer: every committed record once, none of an aborted transaction)",
		"commit-to-visible delay timed (each committed record's first read minus its transaction's commit acknowledgement): committed (against txw's commits)\n",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// TestDryRunSaysBrokerSettings: a sweep of broker settings shows each
// scenario's values in the dry run.
func TestDryRunSaysBrokerSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	planFile := filepath.Join(dir, "sweep.yaml")
	must(t, os.WriteFile(planFile, []byte(`name: sweep
cluster: {bootstrap: 127.0.0.1:9, broker_configs: {num.io.threads: "${io}"}}
topics: [{name: t, partitions: 3, replication: 1}]
workloads:
  - {name: w, type: produce, topic: t, message: {size: 10}, rate: 10/s, duration: 10s}
matrix: {io: [4, 16]}
`), 0o644))
	st, stdout, stderr := hostileState()
	if code := runKbench(t, st, "run", planFile, "--dry-run"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"scenario 1: io=4: about 10s per repeat; broker settings, cluster-wide, put back after: num.io.threads=4",
		"scenario 2: io=16: about 10s per repeat; broker settings, cluster-wide, put back after: num.io.threads=16"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
