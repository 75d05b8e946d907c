package cluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// testCacheDir shares the jars with the CLI ($KBENCH_HOME or the user's
// cache), so they are fetched once per machine, not once per test run.
func testCacheDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("KBENCH_HOME"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache dir for the Kafka jars: %v (set KBENCH_HOME)", err)
	}
	return filepath.Join(d, "kbench")
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// startTest starts a cluster in a temp state dir, stopped when the test ends.
func startTest(t *testing.T, opts ...Opt) (*Cluster, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts real Kafka brokers")
	}
	stateDir := t.TempDir()
	// Hang guards, not measurements: 3 brokers took 135-147 s to come up
	// under -race at load average 40, and a restarted broker more than
	// the default 90 s. The start bound (also every Restart's) is twice
	// the slowest seen; ctx covers it.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	base := []Opt{WithCacheDir(testCacheDir(t)), WithStateDir(stateDir), WithHeap("512m"),
		WithStopOnExit(true), WithLog(testLog{t}), WithName("it"), WithStartTimeout(5 * time.Minute)}
	c, err := Start(ctx, append(base, opts...)...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Stop(ctx, false); err != nil {
			t.Errorf("cleanup Stop: %v", err)
		}
	})
	return c, stateDir
}

func metadataBrokers(t *testing.T, c *Cluster) []int32 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...))
	if err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(cl)
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	return md.Brokers.NodeIDs()
}

func TestOneBroker(t *testing.T) {
	t.Parallel()
	c, stateDir := startTest(t)
	if ids := metadataBrokers(t, c); len(ids) != 1 || ids[0] != 1 {
		t.Fatalf("metadata brokers = %v, want [1]", ids)
	}
	produceConsume(t, c.Bootstrap())

	b := c.Brokers[0]
	// The whole log: creating the internal topics at start-up writes
	// hundreds of lines after "started".
	logBytes, err := os.ReadFile(b.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if log := string(logBytes); !strings.Contains(log, "Kafka Server started") {
		t.Errorf("broker log lacks start-up lines (log4j binding?):\n%s", tailLines(log, 10))
	}
	// Regression: the slf4j 2 binding with Kafka's slf4j-api 1.7 logged nothing.
	if out := tailFile(b.OutPath, 100); strings.Contains(out, "SLF4J") {
		t.Errorf("server.out has SLF4J warnings:\n%s", out)
	}

	loaded, err := Load(stateDir, "it")
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Bootstrap() != c.Bootstrap() || loaded.Brokers[0].PID != b.PID {
		t.Fatalf("Load = %+v, want %+v", loaded.Brokers, c.Brokers)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := loaded.Status(ctx)
	if err != nil || len(st) != 1 || st[0].State() != "up" {
		t.Fatalf("Status = %+v, %v; want one broker up", st, err)
	}
	// `cluster up` twice must not start a second cluster over the first.
	_, err = Start(ctx, WithCacheDir(testCacheDir(t)), WithStateDir(stateDir), WithName("it"))
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("second Start: %v, want ErrRunning", err)
	}

	// Stop through the loaded state, as `cluster down` in another process does.
	if err := loaded.Stop(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("data dir after Stop: %v, want it removed", err)
	}
	if inspect(b.PID, b.ConfigPath) != procGone {
		t.Fatal("broker still runs after Stop")
	}
}

func produceConsume(t *testing.T, bootstrap string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const topic = "kbench-cluster-test"
	// Auto-creation takes a moment: wait for the topic (bounded by ctx)
	// instead of failing after franz-go's 4 unknown-topic retries.
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.AllowAutoTopicCreation(), kgo.ConsumeTopics(topic), kgo.UnknownTopicRetries(-1))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("hello")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consume: %v", err)
		}
		for _, r := range fs.Records() {
			if string(r.Value) == "hello" {
				return
			}
		}
	}
}

func TestThreeBrokers(t *testing.T) {
	t.Parallel()
	c, _ := startTest(t, WithBrokers(3))
	if ids := metadataBrokers(t, c); len(ids) != 3 {
		t.Fatalf("metadata brokers = %v, want 3", ids)
	}
	// A hang guard, not a measurement: it covers the Restart's own 5 min.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	if err := c.Kill(2); err != nil {
		t.Fatal(err)
	}
	if err := c.Pause(3); err != nil {
		t.Fatal(err)
	}
	b2, _ := c.Broker(2)
	waitFor(t, func() bool { return c.state(b2) == procGone })
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"up", "killed", "paused"} // killed by kbench, not dead on its own
	for i, s := range st {
		if s.State() != want[i] {
			t.Errorf("broker %d: %s, want %s", s.ID, s.State(), want[i])
		}
	}
	if err := c.Resume(3); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(2); err == nil {
		t.Error("Kill of a dead broker must fail")
	}
	if err := c.Restart(ctx, 2); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if nb, _ := c.Broker(2); nb.PID == b2.PID {
		t.Error("Restart kept the old PID")
	}
	if ids := metadataBrokers(t, c); len(ids) != 3 {
		t.Fatalf("after Restart, metadata brokers = %v, want 3", ids)
	}
}

func TestStartFailureShowsLog(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: runs Kafka's storage tool")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := Start(ctx, WithCacheDir(testCacheDir(t)), WithStateDir(t.TempDir()), WithStopOnExit(true),
		WithBrokerProps(map[string]string{"log.retention.ms": "soon"}))
	if err == nil || !strings.Contains(err.Error(), "log.retention.ms") {
		t.Fatalf("Start with a bad property: %v, want an error naming it", err)
	}
}

// TestBrokerExitShowsLog starts brokers through a java wrapper that formats
// storage for real but makes kafka.Kafka exit at once.
func TestBrokerExitShowsLog(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: runs Kafka's storage tool")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	wrapper := fakeTool(t, "java", `case "$*" in *kafka.Kafka*) echo "Error: broker boom" >&2; exit 3;; esac; exec `+java+` "$@"`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = Start(ctx, WithCacheDir(testCacheDir(t)), WithStateDir(t.TempDir()), WithJava(wrapper))
	for _, want := range []string{"broker 1", "exited during start-up", "exit status 3", "Error: broker boom", "logs kept in"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Start: %v\nwant an error containing %q", err, want)
		}
	}
	if errors.Is(err, errPortInUse) {
		t.Fatal("not a port race")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	// A hang guard, not a measurement: the state of a broker process on
	// a loaded machine.
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in a minute (hang guard)")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStartInterruptedWhileFormatting guards a Ctrl-C during `cluster up`
// while the storage tool ran: it left a cluster folder without state,
// which neither `cluster status` nor `cluster down` saw. The state is now
// saved before the first JVM starts, and an interrupted start that began
// no broker removes its folder.
func TestStartInterruptedWhileFormatting(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("integration test: needs the Kafka jars")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	// The storage tool hangs until the start is interrupted.
	wrapper := fakeTool(t, "java", `case "$*" in *StorageTool*) exec sleep 60;; esac; exec `+java+` "$@"`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stateDir := t.TempDir()
	var seenWhileFormatting error
	log := logFunc(func(line string) {
		if strings.HasPrefix(line, "formatting storage") {
			_, seenWhileFormatting = Load(stateDir, "cut")
			cancel()
		}
	})
	_, err = Start(ctx, WithCacheDir(testCacheDir(t)), WithStateDir(stateDir), WithName("cut"), WithJava(wrapper), WithLog(log))
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("Start: %v; want it interrupted", err)
	}
	if seenWhileFormatting != nil {
		t.Errorf("while formatting, the cluster's state could not be read (status and down would not see it): %v", seenWhileFormatting)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "cut")); !os.IsNotExist(err) {
		t.Errorf("the interrupted start left its folder: %v", err)
	}
}

// logFunc hands each line logged to a function.
type logFunc func(line string)

func (f logFunc) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		f(line)
	}
	return len(p), nil
}
