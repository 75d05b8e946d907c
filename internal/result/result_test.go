package result

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	h := measure.NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		h.Record(v)
	}
	lat, err := LatencyOf(h)
	if err != nil {
		t.Fatal(err)
	}
	if lat.Unit != "us" || lat.Count != 1000 || lat.P50 > lat.P99 || lat.P99 > lat.Max || lat.Histogram == "" {
		t.Fatalf("latency %+v", lat)
	}
	doc := &Document{
		Kind:      KindProducerPerf,
		StartedAt: time.Unix(1700000000, 0).UTC(),
		EndedAt:   time.Unix(1700000010, 0).UTC(),
		Status:    StatusOK,
		Topic:     &Topic{Name: "t", Partitions: 3},
		Config:    map[string]string{"acks": "all"},
		Producer:  &Producer{Clients: 1, Records: 1000, Latency: lat},
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := Write(path, doc); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != Schema || got.Producer.Records != 1000 || got.Topic.Partitions != 3 || !got.StartedAt.Equal(doc.StartedAt) {
		t.Fatalf("read back %+v", got)
	}
	back, err := measure.Decode(got.Producer.Latency.Histogram)
	if err != nil || back.Count() != 1000 {
		t.Fatalf("histogram: %v, count %d", err, back.Count())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// TestWriteKeepsDevicesAndLinks: regression: writing a result over a
// device node (--json /dev/full) replaced the node with a regular file, and
// over a symlink replaced the link instead of writing its target; and the
// result file was created mode 0600. The device is one the test makes in
// its own folder.
func TestWriteKeepsDevicesAndLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := &Document{Kind: KindProducerPerf, Status: StatusOK}

	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, doc); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced (%v)", err)
	}
	if _, err := Read(target); err != nil {
		t.Errorf("the link's target holds no result: %v", err)
	} else if fi, err := os.Stat(target); err != nil || fi.Mode().Perm()&0o044 == 0 {
		t.Errorf("a new result file must be readable by others (0644 less the umask): %v", err)
	}

	full := filepath.Join(dir, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
		t.Skipf("cannot make a device node (%v): mknod needs root or CAP_MKNOD", err)
	}
	if err := Write(full, doc); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("writing /dev/full's twin: %v, want ENOSPC", err)
	}
	if fi, err := os.Lstat(full); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device node was replaced (%v)", err)
	}
}

func TestReadRejects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, content, want string
	}{
		{"not json", "hello", "not a kbench result document"},
		{"other schema", `{"schema":"omb/v1"}`, `schema "omb/v1" is not kbench.result`},
		{"no schema", `{"kind":"x"}`, `schema "" is not kbench.result`},
		{"newer version", `{"schema":"kbench.result/v9"}`, "newer than this kbench understands"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
		if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err = %v, want it to name the file and say %q", tt.name, err, tt.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file must fail")
	}
}

func TestNewFinish(t *testing.T) {
	t.Parallel()
	started := time.Now().Add(-time.Second)
	ok := New(KindConsumerPerf, "v1", started, map[string]string{"a": "b"})
	ok.Finish(nil)
	if ok.Schema != Schema || ok.Kind != KindConsumerPerf || ok.Status != StatusOK || ok.Error != "" || !ok.EndedAt.After(started) {
		t.Fatalf("ok document %+v", ok)
	}
	failed := New(KindProducerPerf, "v1", started, nil)
	failed.Finish(errors.New("broker died"))
	if failed.Status != StatusFailed || failed.Error != "broker died" {
		t.Fatalf("failed document: status %q error %q", failed.Status, failed.Error)
	}
}

// TestWriteModeLikePlanYAML: regression: result.json was written 0600
// (os.CreateTemp) beside a plan.yaml of 0644: a results folder shared with
// a team was half unreadable. It gets what os.WriteFile(0o644) gives.
func TestWriteModeLikePlanYAML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "result.json")
	if err := Write(res, New(KindPlan, "test", time.Now(), nil)); err != nil {
		t.Fatal(err)
	}
	pi, err := os.Stat(plan)
	if err != nil {
		t.Fatal(err)
	}
	ri, err := os.Stat(res)
	if err != nil {
		t.Fatal(err)
	}
	if pi.Mode() != ri.Mode() {
		t.Errorf("result.json is %v, plan.yaml %v; want the same", ri.Mode(), pi.Mode())
	}
}
