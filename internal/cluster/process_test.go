package cluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// fakeBroker starts a process whose command line ends with config, as a
// broker's does. Two commands keep sh from exec'ing sleep in its place.
func fakeBroker(t *testing.T, config string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 30; :", "kbench-test", config)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func TestInspect(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("checks /proc states")
	}
	config := filepath.Join(t.TempDir(), "node-1", "server.properties")
	cmd := fakeBroker(t, config)
	pid := cmd.Process.Pid
	b := Broker{ID: 1, PID: pid, ConfigPath: config}
	// Right after exec, /proc may show an empty command line for a moment.
	waitState(t, b, procRunning)

	tests := []struct {
		name   string
		pid    int
		config string
		want   procState
	}{
		{"ours", pid, config, procRunning},
		{"other node's config", pid, config + "x", procGone},
		{"config prefix only", pid, filepath.Dir(config), procGone},
		{"no config", pid, "", procGone},
		{"reused pid: this test binary", os.Getpid(), config, procGone},
		{"no pid", 0, config, procGone},
	}
	for _, tt := range tests {
		if got := inspect(tt.pid, tt.config); got != tt.want {
			t.Errorf("%s: inspect = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Regression: a reused PID must never be signalled.
	if err := signal(Broker{ID: 9, PID: os.Getpid(), ConfigPath: config}, syscall.SIGTERM); err == nil {
		t.Fatal("signal to a PID that is not our broker must fail")
	}

	if err := signal(b, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitState(t, b, procStopped)
	if err := signal(b, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitState(t, b, procRunning)
	// Killed but not yet reaped: a zombie is not a running broker.
	if err := signal(b, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitState(t, b, procGone)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !(&Cluster{}).waitGone(ctx, b) {
		t.Fatal("waitGone: still there")
	}
}

func waitState(t *testing.T, b Broker, want procState) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for inspect(b.PID, b.ConfigPath) != want {
		if time.Now().After(deadline) {
			t.Fatalf("broker state = %v, want %v", inspect(b.PID, b.ConfigPath), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want byte
	}{
		{"123 (java) S 1 2 3", 'S'},
		{"123 (a) b) (c) T 1", 'T'},
		{"123 (java) Z", 'Z'},
		{"garbage", 0},
		{"1 (x)", 0},
	}
	for _, tt := range tests {
		if got := parseStat([]byte(tt.in)); got != tt.want {
			t.Errorf("parseStat(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCheckAlivePortRace: a broker that lost its port to another process
// must be recognised, so Start retries with new ports.
func TestCheckAlivePortRace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := Broker{ID: 1, PID: 0, Dir: dir, ConfigPath: dir + "/server.properties",
		LogPath: dir + "/server.log", OutPath: dir + "/server.out"}
	c := &Cluster{Name: "t", Brokers: []Broker{b}}
	tests := []struct {
		name     string
		log      string
		wantRace bool
	}{
		{"bind failure", "ERROR [KafkaServer] java.net.BindException: Address already in use\n", true},
		{"other failure", "ERROR Exiting Kafka due to fatal exception\n", false},
	}
	for _, tt := range tests {
		if err := os.WriteFile(b.LogPath, []byte(tt.log), 0o644); err != nil {
			t.Fatal(err)
		}
		err := c.checkAlive([]int{1})
		if err == nil || errors.Is(err, errPortInUse) != tt.wantRace {
			t.Errorf("%s: checkAlive = %v, want port race %v", tt.name, err, tt.wantRace)
		}
	}
}
