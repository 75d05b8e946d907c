package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// TestVerifiedTopicRecreatedUnderTheRun: regression: a second run of the
// same plan deleted and created the topic again while the first still
// wrote it, and the first reported "393 lost" (acks=all) and failed on a
// loss that never happened, without a word about the deletion. The run
// now says its topic was replaced and that its records cannot be
// checked.
func TestVerifiedTopicRecreatedUnderTheRun(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := uniqueTopic(t, "replaced")
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(`name: replaced
cluster: {bootstrap: `+bootstrap+`}
topics: [{name: `+topic+`, partitions: 2}]
workloads:
  - {name: w, type: produce, topic: `+topic+`, message: {size: 10}, rate: 500/s, duration: 4s, verify: true}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, _ := clusterTestState(t)
	stderr := &syncBuffer{}
	st.stderr = stderr
	go func() {
		// The other run: once records flow, the topic is deleted and
		// made again.
		if !waitFor(t, time.Minute, func() bool { return endOffsetSum(t, bootstrap, topic) > 200 }) {
			t.Errorf("no records in %s", topic)
			return
		}
		cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
		if err != nil {
			t.Error(err)
			return
		}
		defer cl.Close()
		adm := kadm.NewClient(cl)
		ctx := context.Background()
		if _, err := adm.DeleteTopics(ctx, topic); err != nil {
			t.Error(err)
		}
		if _, err := adm.CreateTopics(ctx, 2, 1, nil, topic); err != nil {
			t.Error(err)
		}
	}()
	out := filepath.Join(dir, "out")
	code := runKbench(t, st, "run", planFile, "--out", out)
	doc := readDoc(t, filepath.Join(out, "result.json"))
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if code != exitFailure || len(rep.Verification) != 1 {
		t.Fatalf("exit %d, verification %+v\n%s", code, rep.Verification, stderr)
	}
	v := rep.Verification[0]
	if v.Lost != 0 || !strings.Contains(v.Error, "was deleted and created again while the run wrote it") || !strings.Contains(rep.Error, "deleted and created again") {
		t.Errorf("verification %+v, repeat error %q; want the topic's replacement said, no loss", v, rep.Error)
	}
	if rep.Status != result.StatusFailed {
		t.Errorf("repeat %s", rep.Status)
	}
}

// TestPlanDeleteTopics: delete_topics: true leaves none of the plan's
// topics on the cluster (regression: about 750 partitions an earlier study
// left recovered in a later study's fault figures).
func TestPlanDeleteTopics(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := uniqueTopic(t, "deleted")
	planFile := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(planFile, []byte(`name: deleted
cluster: {bootstrap: `+bootstrap+`}
delete_topics: true
topics: [{name: "`+topic+`-${n}", partitions: 2}]
workloads:
  - {name: w, type: produce, topic: "`+topic+`-${n}", message: {size: 10}, records: 100}
matrix:
  n: [1, 2]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _, stderr := clusterTestState(t)
	if code := runKbench(t, st, "run", planFile, "--out", filepath.Join(t.TempDir(), "out")); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "kbench: deleted the plan's 2 topic(s) (delete_topics)") {
		t.Errorf("stderr does not say the topics were deleted:\n%s", stderr)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	listed, err := kadm.NewClient(cl).ListTopics(context.Background(), topic+"-1", topic+"-2")
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range listed {
		if td.Err == nil {
			t.Errorf("topic %s is still there", td.Topic)
		}
	}
}
