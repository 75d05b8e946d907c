package cluster

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	stateDir := t.TempDir()
	dir := filepath.Join(stateDir, "bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{
		Name: "bench", Version: "4.1.2", ID: "MkU3OEVBNTcwNTJENDM2Qk", Dir: dir,
		Heap: "1g", Java: "/usr/bin/java", Classpath: "/c/libs/*",
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Brokers: []Broker{
			{ID: 1, PID: 100, Port: 9092, ControllerPort: 9093, Dir: dir + "/node-1",
				ConfigPath: dir + "/node-1/server.properties", LogPath: dir + "/node-1/server.log", OutPath: dir + "/node-1/server.out"},
			{ID: 2, PID: 101, Port: 9094, ControllerPort: 9095, Dir: dir + "/node-2"},
		},
	}
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	got, err := Load(stateDir, "bench")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Brokers, c.Brokers) || got.Name != c.Name || got.ID != c.ID ||
		got.Dir != c.Dir || got.Heap != c.Heap || got.Java != c.Java || got.Classpath != c.Classpath ||
		!got.StartedAt.Equal(c.StartedAt) || got.Version != c.Version {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, c)
	}
	if b := got.Bootstrap(); b != "127.0.0.1:9092,127.0.0.1:9094" {
		t.Fatalf("Bootstrap = %q", b)
	}
	if _, ok := got.Broker(2); !ok {
		t.Fatal("Broker(2) not found")
	}
	if _, ok := got.Broker(3); ok {
		t.Fatal("Broker(3) found")
	}
	names, err := List(stateDir)
	if err != nil || !reflect.DeepEqual(names, []string{"bench"}) {
		t.Fatalf("List = %v, %v; want [bench]", names, err)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	stateDir := t.TempDir()
	if _, err := Load(stateDir, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load of a missing cluster: %v, want ErrNotFound", err)
	}
	if err := os.MkdirAll(filepath.Join(stateDir, "bad"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stateDir, "bad", stateFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(stateDir, "bad"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("Load of a corrupt state: %v, want a parse error", err)
	}
	// A stopped cluster does not block a new one; a corrupt state does.
	if err := checkNotRunning(stateDir, "nope"); err != nil {
		t.Fatal(err)
	}
	if err := checkNotRunning(stateDir, "bad"); err == nil {
		t.Fatal("want an error for a corrupt state")
	}
}
