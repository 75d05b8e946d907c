package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/testkafka"
)

// seedPlan sends uuids, random strings and uuid keys from two clients to
// each topic of the matrix.
const seedPlan = `name: fresh-values
topics:
  - {name: "${t}", partitions: 1, replication: 1}
workloads:
  - name: orders
    type: produce
    topic: "${t}"
    clients: 2
    records: 300
    properties: {acks: 1}
    message:
      key: {template: {_type: uuid}}
      template:
        id: {_type: uuid}
        note: {_type: random_string, _length: 24}
matrix:
  t: [x]
`

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestPlanRandomValuesFreshPerRun: regression: without a seed, two runs of
// a plan sent the same uuids (1,800 of 1,800), random strings and template
// keys, and every topic of one run got the same ids. Two runs of a
// three-topic plan must share no id, string or key, every id a version 4
// uuid; a third run given the first run's seed (from result.json) sends
// the first run's records again.
func TestPlanRandomValuesFreshPerRun(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(seedPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, topics []string, sets ...string) uint64 {
		t.Helper()
		out := filepath.Join(dir, name)
		var stdout, stderr syncBuffer
		st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		args := []string{"run", planFile, "--out", out, "--set", "cluster.bootstrap=" + bootstrap,
			"--set", "matrix.t={" + strings.Join(topics, ",") + "}"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		if code := runKbench(t, st, args...); code != exitOK {
			t.Fatalf("run %s: exit %d\n%s", name, code, stderr.String())
		}
		raw, err := os.ReadFile(filepath.Join(out, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Plan struct{ Seed *uint64 }
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Plan.Seed == nil {
			t.Errorf("run %s: result.json records no seed", name)
			return 0
		}
		return *doc.Plan.Seed
	}
	topics := func(name string) (out []string) {
		for i := range 3 {
			out = append(out, uniqueTopic(t, fmt.Sprintf("fresh-%s%d", name, i)))
		}
		return out
	}
	type rec struct{ id, note, key string }
	read := func(topic string) []rec {
		t.Helper()
		var out []rec
		for _, r := range readRecords(t, bootstrap, topic, 300) {
			var v struct{ ID, Note string }
			if err := json.Unmarshal(r.Value, &v); err != nil {
				t.Fatalf("%s: value %q: %v", topic, r.Value, err)
			}
			out = append(out, rec{v.ID, v.Note, string(r.Key)})
		}
		return out
	}
	topicsA, topicsB := topics("a"), topics("b")
	seedA := run("a", topicsA)
	seedB := run("b", topicsB)
	if seedA == seedB {
		t.Errorf("two runs without a seed both used seed %d", seedA)
	}
	seen := map[string]string{}
	first := map[string][]rec{}
	for _, topic := range append(topicsA, topicsB...) {
		recs := read(topic)
		first[topic] = recs
		for _, r := range recs {
			if !uuidV4.MatchString(r.id) || !uuidV4.MatchString(r.key) {
				t.Fatalf("%s: id %q or key %q is not a version 4 uuid", topic, r.id, r.key)
			}
			for _, v := range []string{r.id, r.note, r.key} {
				if where, ok := seen[v]; ok {
					t.Fatalf("%q sent to %s and to %s", v, where, topic)
				}
				seen[v] = topic
			}
		}
	}
	if len(seen) != 3*2*3*300 {
		t.Fatalf("%d distinct values, want %d", len(seen), 3*2*3*300)
	}

	// The same scenarios again (their topics recreated) with the seed.
	if seedC := run("c", topicsA, fmt.Sprintf("seed=%d", seedA)); seedC != seedA {
		t.Fatalf("run with --set seed=%d recorded seed %d", seedA, seedC)
	}
	for i, topic := range topicsA {
		a, c := map[rec]bool{}, map[rec]bool{}
		for _, r := range first[topic] {
			a[r] = true
		}
		for _, r := range read(topic) {
			c[r] = true
		}
		for r := range a {
			if !c[r] {
				t.Fatalf("scenario %d replayed with the first run's seed lacks %v", i+1, r)
			}
		}
	}
}

// readRecords reads want records of topic from its start.
func readRecords(t *testing.T, bootstrap, topic string, want int) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for len(out) < want {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d of %d records of %s: %v", len(out), want, topic, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("consume %s: %v", topic, err) })
		out = append(out, fs.Records()...)
	}
	return out
}

// TestPreviewFreshUnlessSeeded: regression: kbench preview printed the
// same first uuid every call. Without a seed each call draws one and says
// it; given that seed, preview prints the same records again.
func TestPreviewFreshUnlessSeeded(t *testing.T) {
	t.Parallel()
	planFile := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(planFile, []byte(seedPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	preview := func(sets ...string) string {
		t.Helper()
		var stdout, stderr syncBuffer
		st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		args := []string{"preview", planFile, "-n", "3"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		if code := runKbench(t, st, args...); code != exitOK {
			t.Fatalf("preview: exit %d\n%s", code, stderr.String())
		}
		return stdout.String()
	}
	a, b := preview(), preview()
	records := func(out string) string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "#") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if records(a) == records(b) {
		t.Fatalf("two previews printed the same records:\n%s", a)
	}
	m := regexp.MustCompile(`# seed (\d+) `).FindStringSubmatch(a)
	if m == nil {
		t.Fatalf("the preview does not say its seed:\n%s", a)
	}
	if again := preview("seed=" + m[1]); records(again) != records(a) {
		t.Errorf("with seed %s the preview printed\n%s\nwant\n%s", m[1], again, a)
	}
}
