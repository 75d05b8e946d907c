package study

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/serde"
	"github.com/kbench/kbench/internal/userr"
)

// A registry problem fails the plan before a record is sent, with an error
// that says which subject and what to do, not a user error (exit 1).
func TestRegistryProblemsStopThePlanBeforeSending(t *testing.T) {
	t.Parallel()
	fake := srfake.New()
	t.Cleanup(fake.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		name, props string
		want        error
		words       string
	}{
		{"unreachable", `schema.registry.url: "` + dead + `"`, serde.ErrUnreachable, dead},
		{"not found", `schema.registry.url: "` + fake.URL() + `", auto.register.schemas: false`, serde.ErrSubjectNotFound, `subject "t-value"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var produced atomic.Int64
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				produced.Add(1)
				return nil, nil, false
			})
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "user.avsc"), []byte(itAvro), 0o644); err != nil {
				t.Fatal(err)
			}
			text := fmt.Sprintf(`name: r
cluster: {bootstrap: "%s"}
schema_registry: {%s}
topics: [{name: t, partitions: 1, existing: reuse}]
workloads:
  - name: w
    type: produce
    topic: t
    records: 100
    message:
      format: avro
      schema_file: user.avsc
      template: {id: {_type: uuid}, name: n, description: {_type: random_string, _length: 40}, value: 1, timestamp: {_type: now}}
`, c.ListenAddrs()[0], tc.props)
			p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(text), nil, PlanTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			scs, _ := p.Scenarios()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err = Run(ctx, p, scs, Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.words) || !strings.Contains(err.Error(), "before sending") {
				t.Fatalf("err = %v, want %v naming %s", err, tc.want, tc.words)
			}
			if userr.Is(err) {
				t.Errorf("a registry failure is not the plan's mistake (exit 1, not 2): %v", err)
			}
			if n := produced.Load(); n != 0 {
				t.Errorf("%d produce requests were sent", n)
			}
		})
	}
}

// kbench preview shows a formatted workload's values as the template
// renders them and as they are sent, without a registry.
func TestPreviewShowsEncodedSizes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{"user.avsc": itAvro, "user.proto": itProto, "user.json": itJSONSchema} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for format, file := range map[string]string{"avro": "user.avsc", "protobuf": "user.proto", "json_schema": "user.json"} {
		text := fmt.Sprintf(itPlan, format, "127.0.0.1:9092", "http://127.0.0.1:8081", "t", 10, file)
		p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(text), nil, PlanTypes()...)
		if err != nil {
			t.Fatal(err)
		}
		scs, _ := p.Scenarios()
		recs, _, err := Preview(p, &scs[0], "users", 3, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs["users"] {
			if r.Format != format || len(r.Encoded) == 0 || r.Encoded[0] != 0 {
				t.Fatalf("%s: record %+v", format, r)
			}
			if format != "json_schema" && len(r.Encoded) >= len(r.Value) {
				t.Errorf("%s: %d bytes encoded, not fewer than the JSON's %d", format, len(r.Encoded), len(r.Value))
			}
		}
	}
}

// schema_evolution registers a compatible new version mid-run: the
// producers switch to its id, and the consumer decodes both versions,
// fetching the new one once.
func TestSchemaEvolutionMidRun(t *testing.T) {
	t.Parallel()
	fake := srfake.New()
	t.Cleanup(fake.Close)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	dir := t.TempDir()
	v2 := strings.Replace(itAvro, `{"name":"value","type":"int"},`, `{"name":"value","type":"int"},{"name":"email","type":"string","default":"none"},`, 1)
	for name, text := range map[string]string{"v1.avsc": itAvro, "v2.avsc": v2} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := fmt.Sprintf(`name: ev
cluster: {bootstrap: "%s"}
schema_registry: {schema.registry.url: "%s"}
topics: [{name: t, partitions: 1, existing: reuse}]
workloads:
  - name: w
    type: produce
    topic: t
    rate: 2000/s
    duration: 1500ms
    message:
      format: avro
      schema_file: v1.avsc
      schema_evolution: {after: 500ms, schema_file: v2.avsc}
      template: {id: {_type: uuid}, name: n, description: {_type: random_string, _length: 40}, value: 1, timestamp: {_type: now}}
  - name: r
    type: consume
    topic: t
    timeout: 3s
`, c.ListenAddrs()[0], fake.URL())
	p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	doc, err := Run(ctx, p, scs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	evs := doc.Plan.SchemaRegistry.Evolutions
	if len(evs) != 1 || evs[0].Error != "" || evs[0].ID == evs[0].FromID || evs[0].Subject != "t-value" {
		t.Fatalf("evolutions = %+v", evs)
	}
	for _, w := range doc.Plan.Scenarios[0].Repeats[0].Workloads {
		if c := w.Consumer; c != nil && (c.Decoded == 0 || c.DecodeFailures != 0) {
			t.Errorf("consumer decoded %d, failed %d: %s", c.Decoded, c.DecodeFailures, c.DecodeError)
		}
	}
	if n := doc.Plan.SchemaRegistry.WarmRequests; n < 3 {
		t.Errorf("warm requests %d: want the evolution's (compatibility, register) and the reader's fetches of both ids", n)
	}
}

// Keys take a schema too: rendered from their template and encoded in the
// message's format, framed like values.
func TestKeysEncodedWithTheirSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "user.avsc"), []byte(itAvro), 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(fmt.Sprintf(itPlan, "avro", "127.0.0.1:9092", "http://127.0.0.1:8081", "t", 10, "user.avsc"),
		"      template:\n", "      key: {template: {_type: uuid}, schema: '\"string\"'}\n      template:\n", 1)
	p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(text), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	recs, _, err := Preview(p, &scs[0], "users", 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs["users"] {
		// magic byte, 4-byte id, Avro string: length 36 as a zigzag varint (72), 36 bytes.
		if len(r.Key) != 5+1+36 || r.Key[0] != 0 || r.Key[5] != 72 {
			t.Errorf("key % x, want a framed Avro string of a uuid", r.Key)
		}
	}
	bad := strings.Replace(text, `schema: '"string"'`, `schema: '"long"'`, 1)
	if _, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(bad), nil, PlanTypes()...); err == nil || !strings.Contains(err.Error(), "message.key.template: does not fit its avro schema: is a string; the schema wants long") {
		t.Errorf("a uuid key against a long schema: %v", err)
	}
}

// TestSchemaEvolutionFailureFailsTheRepeat: regression: the registry
// killed mid-run made schema_evolution fail, which only result.json said:
// the run reported ok, nothing on stderr. A registry that stops answering
// when the new version is due now warns at once on stderr and fails the
// repeat, naming the workload, the subject and the version the producers
// kept; so does an evolution the repeat ended before.
func TestSchemaEvolutionFailureFailsTheRepeat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, after string
		named       bool // the registry is a named local cluster's
		want        []string
	}{
		{"registry dead", "300ms", false, []string{`schema evolution of workload "w" (subject "t-value") did not happen: set the compatibility level of subject "t-value" in schema registry`, "schema registry unreachable", "the producers kept version id 1"}},
		{"a named cluster's registry dead", "300ms", true, []string{`schema evolution of workload "w" (subject "t-value") did not happen: set the compatibility level`, `(the schema registry of cluster "lab" does not answer: kbench cluster up --name lab --schema-registry restarts it, empty)`}},
		{"repeat ended first", "1h", false, []string{`schema evolution of workload "w" (subject "t-value") did not happen: not registered: the repeat ended after`, "before after: 1h0m0s; make after shorter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := srfake.New()
			t.Cleanup(fake.Close)
			target, err := url.Parse(fake.URL())
			if err != nil {
				t.Fatal(err)
			}
			proxy := httputil.NewSingleHostReverseProxy(target)
			// The registry dies when the new version is due: its first
			// request (the compatibility level) finds the connection cut.
			reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/config") {
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
					return
				}
				proxy.ServeHTTP(w, r)
			}))
			t.Cleanup(reg.Close)
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			dir := t.TempDir()
			v2 := strings.Replace(itAvro, `{"name":"value","type":"int"},`, `{"name":"value","type":"int"},{"name":"email","type":"string","default":"none"},`, 1)
			for name, text := range map[string]string{"v1.avsc": itAvro, "v2.avsc": v2} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cl := fmt.Sprintf("cluster: {bootstrap: %q}\nschema_registry: {schema.registry.url: %q}", c.ListenAddrs()[0], reg.URL)
			opt := Options{}
			if tc.named {
				cl = "cluster: {name: lab}"
				opt.Named = func(context.Context, plan.Cluster) (*LocalCluster, error) {
					return &LocalCluster{Bootstrap: c.ListenAddrs()[0], Brokers: 1, Stop: func() {}, RegistryURL: reg.URL}, nil
				}
			}
			text := fmt.Sprintf(`name: ev
%s
topics: [{name: t, partitions: 1, existing: reuse}]
workloads:
  - name: w
    type: produce
    topic: t
    rate: 1000/s
    duration: 1s
    message:
      format: avro
      schema_file: v1.avsc
      schema_evolution: {after: %s, schema_file: v2.avsc}
      template: {id: {_type: uuid}, name: n, description: {_type: random_string, _length: 40}, value: 1, timestamp: {_type: now}}
`, cl, tc.after)
			p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(text), nil, PlanTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			scs, _ := p.Scenarios()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var progress syncBuf
			opt.Progress = &progress
			doc, err := Run(ctx, p, scs, opt)
			if err == nil {
				t.Fatal("the run succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant %q", err, w)
				}
				if !strings.Contains(progress.String(), "kbench: warning: scenario 1, repeat 1: "+tc.want[0]) {
					t.Errorf("stderr lacks the warning:\n%s", progress.String())
				}
			}
			rep := doc.Plan.Scenarios[0].Repeats[0]
			if rep.Status != result.StatusFailed || !strings.Contains(rep.Error, tc.want[0]) {
				t.Errorf("repeat %s: %s", rep.Status, rep.Error)
			}
			if evs := doc.Plan.SchemaRegistry.Evolutions; len(evs) != 1 || evs[0].Error == "" || evs[0].ID != 0 {
				t.Errorf("evolutions = %+v", evs)
			}
		})
	}
}

// syncBuf is a bytes.Buffer safe for the writes of several goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNamedClusterRegistryDeadSaysRestart: a named local cluster's
// registry that does not answer before sending fails the plan saying how
// to bring it back.
func TestNamedClusterRegistryDeadSaysRestart(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "user.avsc"), []byte(itAvro), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(`name: r
cluster: {name: lab}
topics: [{name: t, partitions: 1, existing: reuse}]
workloads:
  - name: w
    type: produce
    topic: t
    records: 10
    message:
      format: avro
      schema_file: user.avsc
      template: {id: {_type: uuid}, name: n, description: {_type: random_string, _length: 40}, value: 1, timestamp: {_type: now}}
`), nil, PlanTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = Run(ctx, p, scs, Options{Named: func(context.Context, plan.Cluster) (*LocalCluster, error) {
		return &LocalCluster{Bootstrap: c.ListenAddrs()[0], Brokers: 1, Stop: func() {}, RegistryURL: dead}, nil
	}})
	want := `the schema registry of cluster "lab" does not answer: kbench cluster up --name lab --schema-registry restarts it, empty`
	if !errors.Is(err, serde.ErrUnreachable) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v\nwant %q", err, want)
	}
}
