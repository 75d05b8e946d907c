package cluster

import (
	"context"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// TestRegistryUpStatusRestartDown starts a cluster with its schema
// registry, checks that the registry answers on 127.0.0.1 only, that a
// registry killed behind kbench's back shows as dead and is brought back
// by Start (as a broker is), and that Stop ends it.
func TestRegistryUpStatusRestartDown(t *testing.T) {
	c, stateDir := startTest(t, WithSchemaRegistry(true))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	url := c.RegistryURL()
	if url == "" {
		t.Fatal("RegistryURL is empty on a cluster started WithSchemaRegistry")
	}
	resp, err := http.Get(url + "/subjects")
	if err != nil {
		t.Fatalf("GET subjects: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET subjects: %s", resp.Status)
	}
	loaded, err := Load(stateDir, c.Name)
	if err != nil {
		t.Fatal(err)
	}
	st, err := loaded.RegistryStatus(ctx)
	if err != nil || st == nil || st.State() != "up" {
		t.Fatalf("RegistryStatus = %+v, %v; want up", st, err)
	}

	if err := syscall.Kill(c.Registry.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, _ = loaded.RegistryStatus(ctx)
		if st.State() == "dead" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a killed registry shows as %q, want dead", st.State())
		}
		time.Sleep(100 * time.Millisecond)
	}

	again, err := Start(ctx, WithCacheDir(testCacheDir(t)), WithStateDir(stateDir), WithName(c.Name),
		WithStopOnExit(true), WithLog(testLog{t}))
	if err != nil {
		t.Fatalf("Start of a cluster whose registry died: %v", err)
	}
	if st, _ := again.RegistryStatus(ctx); st.State() != "up" {
		t.Fatalf("after Start the registry is %q, want up", st.State())
	}
	if err := again.Stop(ctx, true); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if st, _ := again.RegistryStatus(ctx); st.State() != "stopped" {
		t.Fatalf("after Stop the registry is %q, want stopped", st.State())
	}
}
