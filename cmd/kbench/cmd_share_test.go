package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// The Apache share consumer tool's lines, as scripts parse them.
var (
	shareHeader    = "start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms"
	shareValues    = dateRE + `, ` + dateRE + `, ` + num4RE + `, ` + num4RE + `, ` + num4RE + `, (\d+), (\d+)`
	shareSummaryRE = regexp.MustCompile(`^` + shareValues + `$`)
	shareMemberRE  = regexp.MustCompile(`^Share consumer (\d+) having client id perf-share-consumer-client-(\d+) consumption metrics- ` + shareValues + `$`)
)

// earliestShareGroup sets a share group's share.auto.offset.reset to
// earliest, as kafka-configs --entity-type groups does, so that it reads
// records written before it existed.
func earliestShareGroup(t *testing.T, bootstrap, group string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = "share.auto.offset.reset", kmsg.StringPtr("earliest")
	res.Configs = append(res.Configs, cfg)
	req.Resources = append(req.Resources, res)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || resp.Resources[0].ErrorCode != 0 {
		t.Fatalf("set share.auto.offset.reset of %s: %v %+v", group, err, resp)
	}
}

// shareLines splits a share tool's stdout into its kinds of lines.
func shareLines(t *testing.T, who, out string) (header string, summaries, members []string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		switch {
		case l == shareHeader:
			header = l
		case shareSummaryRE.MatchString(l):
			summaries = append(summaries, l)
		case shareMemberRE.MatchString(l):
			members = append(members, l)
		}
	}
	if header == "" || len(summaries) != 1 {
		t.Fatalf("%s: header %q, %d summary lines in:\n%s", who, header, len(summaries), out)
	}
	return header, summaries, members
}

// TestConformanceShareConsumerPerfMatchesJava: the drop-in prints what the
// Apache tool prints for the same flags on real Kafka: both run on the
// same topic (each with its own share group), and a parser of the Java
// tool's lines reads kbench's.
func TestConformanceShareConsumerPerfMatchesJava(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Bootstrap(t)
	const n = 20000
	topic := consumerTopic(t, bootstrap, 2, n)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dist, err := cluster.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal(err)
	}
	flags := func(group string) []string {
		// --timeout is long: the Apache tool waits --timeout for its thread
		// pool in total and interrupts consumers still reading then.
		return []string{"--bootstrap-server", bootstrap, "--topic", topic, "--group", group,
			"--num-records", "20000", "--threads", "2", "--show-consumer-stats", "--timeout", "120000"}
	}
	javaGroup, kbenchGroup := uniqueTopic(t, "share-java"), uniqueTopic(t, "share-kbench")
	earliestShareGroup(t, bootstrap, javaGroup)
	earliestShareGroup(t, bootstrap, kbenchGroup)

	cmd := exec.CommandContext(ctx, java, append([]string{"-Xmx512M", "-cp", dist.Classpath(),
		"org.apache.kafka.tools.ShareConsumerPerformance"}, flags(javaGroup)...)...)
	javaOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("the Apache tool: %v\n%s", err, javaOut)
	}
	st, stdout, stderr := consumerTestState()
	jsonPath := filepath.Join(t.TempDir(), "share.json")
	if code := runKbench(t, st, append(append([]string{"share-consumer-perf-test"}, flags(kbenchGroup)...), "--json", jsonPath)...); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	jh, js, jm := shareLines(t, "Java", string(javaOut))
	kh, ks, km := shareLines(t, "kbench", stdout.String())
	if jh != kh || len(jm) != len(km) || len(km) != 2 {
		t.Errorf("Java printed %d member lines, kbench %d (want 2 each)\nJava:\n%s\nkbench:\n%s", len(jm), len(km), javaOut, stdout)
	}
	for who, line := range map[string]string{"Java": js[0], "kbench": ks[0]} {
		if m := shareSummaryRE.FindStringSubmatch(line); m[4] != "20000" {
			t.Errorf("%s read %s records, want 20000: %s", who, m[4], line)
		}
	}
	var doc result.Document
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Consumer; c == nil || c.Share == nil || c.Records != n || c.Share.Accepted != n || len(c.Share.PerMember) != 2 {
		t.Errorf("JSON consumer section %+v, want %d records accepted by 2 members", doc.Consumer, n)
	}
}

// A new share group reads only what is written after it joined, as the
// Apache tool's does (the drop-in sets no share.auto.offset.reset), and
// says how to read older records.
func TestShareConsumerPerfNewGroupReadsNothingOld(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := consumerTopic(t, bootstrap, 1, 1000)
	st, stdout, stderr := consumerTestState()
	code := runKbench(t, st, "share-consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", topic,
		"--group", uniqueTopic(t, "share-new"), "--num-records", "1000", "--timeout", "3000")
	if code != exitOK {
		t.Fatalf("exit %d (want 0, as the Apache tool)\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), "WARNING: Exiting before consuming the expected number of records") ||
		!strings.Contains(stderr.String(), "share.auto.offset.reset=earliest") {
		t.Errorf("want the Apache tool's warning and kbench's hint\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// The share-group study, scaled down, runs as its plan says against the
// test broker: more share consumers than partitions all settle records,
// a released tenth is redelivered, and the verification finds every
// record settled once.
func TestPlanShareGroups(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	plan := filepath.Join(dir, "share.yaml")
	topic := uniqueTopic(t, "share-plan")
	yaml := `name: share
cluster: {bootstrap: ` + bootstrap + `}
topics:
  - name: ` + topic + `-${release}
    partitions: 2
workloads:
  - name: writer
    type: produce
    topic: ` + topic + `-${release}
    message: {size: 100}
    records: 4000
  - name: readers
    type: share-consume
    topic: ` + topic + `-${release}
    clients: 8
    properties: {max.poll.records: 50}   # each fetch acquires 50, so that 8 members share 4000 records
    processing: 1ms
    records: 4000
    share: {acknowledgement: explicit, release: "${release}"}
matrix:
  release: [0, 0.1]
`
	if err := os.WriteFile(plan, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	st, stdout, stderr := consumerTestState()
	out := filepath.Join(dir, "out")
	if code := runKbench(t, st, "run", plan, "--out", out); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	doc, err := result.Read(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, sc := range doc.Plan.Scenarios {
		w := sc.Repeats[0].Workloads[1]
		sh := w.Consumer.Share
		if sh == nil || sh.Verification == nil || sh.Verification.Unsettled != 0 || sh.Verification.AcceptedTwice != 0 || sh.Verification.Accepted+sh.Verification.Archived != 4000 {
			t.Fatalf("scenario %s: share %+v", sc.Name, sh)
		}
		working := 0
		for _, n := range sh.PerMember {
			if n > 0 {
				working++
			}
		}
		if working != 8 {
			t.Errorf("scenario %s: %d of 8 members settled records %v", sc.Name, working, sh.PerMember)
		}
		if i == 1 && (sh.Released == 0 || sh.Redelivered == 0) {
			t.Errorf("scenario %s: released %d, redelivered %d; want a tenth back", sc.Name, sh.Released, sh.Redelivered)
		}
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(summary), "verified: all 4000 records settled exactly once") {
		t.Errorf("summary.md lacks the share verification (%v):\n%s", err, summary)
	}
}

// A read-only command creates nothing: a missing topic is said so (exit 2)
// and stays missing on a broker that creates topics on first use, and a
// number too large for --num-records is one error, not followed by a bogus
// "should be greater than zero".
func TestShareConsumerPerfMissingTopicAndBadCount(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	topic := uniqueTopic(t, "share-absent")
	st, stdout, stderr := consumerTestState()
	code := runKbench(t, st, "share-consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", topic, "--num-records", "10")
	// The header comes first, as the Apache tool prints it before it
	// reads; nothing else does.
	if code != exitUsage || !strings.Contains(stderr.String(), `topic "`+topic+`" does not exist`) || strings.Count(stdout.String(), "\n") > 1 {
		t.Fatalf("exit %d, stderr %q, stdout %q; want %d and that the topic does not exist", code, stderr, stdout, exitUsage)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	topics, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil || topics.Has(topic) {
		t.Errorf("topics %v (%v): the run left %s created", topics.Names(), err, topic)
	}
	st, stdout, stderr = consumerTestState()
	code = runKbench(t, st, "share-consumer-perf-test", "--bootstrap-server", bootstrap, "--topic", topic, "--num-records", "99999999999999999999")
	if code != exitUsage || strings.Contains(stderr.String(), "greater than zero") || !strings.Contains(stderr.String(), "is too large") || stdout.Len() != 0 {
		t.Errorf("exit %d, stderr %q, stdout %q; want one error, that the number is too large", code, stderr, stdout)
	}
}
