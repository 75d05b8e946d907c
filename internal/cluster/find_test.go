package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// fakeKafka starts a process whose command line looks like a broker's:
// `... kafka.Kafka <config>`, run from dir.
func fakeKafka(t *testing.T, dir, config string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 30; :", "kafka.Kafka", config)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// TestFindBrokers: a broker is found by its config, whatever PID the state
// recorded: also started by hand from its node's folder with a relative
// config path.
func TestFindBrokers(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	abs := filepath.Join(dir, "node-1", "server.properties")
	rel := filepath.Join(dir, "node-2", "server.properties")
	for _, d := range []string{filepath.Dir(abs), filepath.Dir(rel)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p1 := fakeKafka(t, dir, abs).Process.Pid
	p2 := fakeKafka(t, filepath.Dir(rel), "server.properties").Process.Pid
	other := fakeKafka(t, dir, filepath.Join(dir, "node-3", "server.properties")).Process.Pid
	want := map[string]int{abs: p1, rel: p2}
	deadline := time.Now().Add(5 * time.Second) // right after exec, /proc may show an empty command line
	for {
		found := findBrokers(abs, rel)
		ok := len(found) == 2
		for config, pid := range want {
			ok = ok && len(found[config]) == 1 && found[config][0].pid == pid && found[config][0].state == procRunning
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("findBrokers = %+v, want %v (not pid %d, another node's)", found, want, other)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := inspect(p2, rel); got != procRunning {
		t.Errorf("inspect of the broker started with a relative config: %v, want running", got)
	}
	if got := inspect(p2, abs); got != procGone {
		t.Errorf("inspect of another node's config: %v, want gone", got)
	}
}

// TestStatusAndStopWithStaleState: regression: a broker whose PID the state
// no longer had (restarted by hand, or by a kbench whose state another
// wrote over) showed as dead while it served, and `cluster down` left it
// running and deleted its data. Both now find it by its config.
func TestStatusAndStopWithStaleState(t *testing.T) {
	t.Parallel()
	c, stateDir := startTest(t)
	real := c.Brokers[0].PID
	// The state as another process wrote it: a PID that is not the broker's.
	path := filepath.Join(c.Dir, stateFile)
	var disk map[string]any
	raw, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(raw, &disk)
	}
	if err != nil {
		t.Fatal(err)
	}
	disk["brokers"].([]any)[0].(map[string]any)["pid"] = os.Getpid()
	if raw, err = json.Marshal(disk); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(stateDir, "it")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := loaded.Status(ctx)
	if err != nil || st[0].State() != "up" || st[0].PID != real {
		t.Fatalf("status %+v, %v; want broker 1 up as pid %d", st, err, real)
	}
	if err := loaded.Stop(ctx, false); err != nil {
		t.Fatal(err)
	}
	if inspect(real, c.Brokers[0].ConfigPath) != procGone {
		t.Error("the broker still runs after Stop")
	}
	if _, err := os.Stat(c.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data dir after Stop: %v, want it removed", err)
	}
}
