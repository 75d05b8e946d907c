package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ombBase is a workload as OMB's workloads/1-topic-16-partitions-1kb.yaml
// writes it, field by field, so cases can change one.
var ombBase = [][2]string{
	{"name", "1 producer / 1 consumers on 1 topic"},
	{"topics", "1"},
	{"partitionsPerTopic", "16"},
	{"messageSize", "1024"},
	{"payloadFile", `"payload/payload-1Kb.data"`},
	{"subscriptionsPerTopic", "1"},
	{"consumerPerSubscription", "1"},
	{"producersPerTopic", "1"},
	{"producerRate", "50000"},
	{"consumerBacklogSizeGB", "0"},
	{"testDurationMinutes", "15"},
}

// ombDriverText is OMB's driver-kafka/kafka-throughput.yaml.
const ombDriverText = `name: Kafka
driverClass: io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver

# Kafka client-specific configuration
replicationFactor: 3

topicConfig: |
  min.insync.replicas=2

commonConfig: |
  bootstrap.servers=localhost:9092
  default.api.timeout.ms=1200000
  request.timeout.ms=1200000

producerConfig: |
  acks=all
  linger.ms=1
  batch.size=1048576

consumerConfig: |
  auto.offset.reset=earliest
  enable.auto.commit=false
  max.partition.fetch.bytes=10485760
`

// ombWorkloadText is ombBase with fields changed ("" removes one) and
// more lines after it.
func ombWorkloadText(change map[string]string, extra string) string {
	var b strings.Builder
	b.WriteString("# a comment, as OMB's files have\n\n")
	for _, f := range ombBase {
		v, ok := change[f[0]]
		if !ok {
			v = f[1]
		}
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", f[0], v)
		}
	}
	for _, f := range ombWorkloadFields {
		if v := change[f]; v != "" && !isBase(f) {
			fmt.Fprintf(&b, "%s: %s\n", f, v)
		}
	}
	return b.String() + extra
}

func isBase(f string) bool {
	for _, b := range ombBase {
		if b[0] == f {
			return true
		}
	}
	return false
}

// ombFiles writes an OMB layout in a temporary folder: workloads/w.yaml,
// driver-kafka/d.yaml and payload/payload-1Kb.data (1024 bytes).
func ombFiles(t *testing.T, workload, driver string) (wpath, dpath string) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"workloads", "driver-kafka", "payload"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wpath = filepath.Join(dir, "workloads", "w.yaml")
	dpath = filepath.Join(dir, "driver-kafka", "d.yaml")
	files := map[string]string{wpath: workload, dpath: driver,
		filepath.Join(dir, "payload", "payload-1Kb.data"): strings.Repeat("0123456789abcdef", 64)}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return wpath, dpath
}

// seqNames are predictable random parts of names: R000001, R000002 ...
func seqNames() ombRand {
	n := 0
	return func(int) string { n++; return fmt.Sprintf("R%06d", n) }
}

func loadTestOMB(t *testing.T, change map[string]string, extra, driver string, sets []string) (*OMB, error) {
	t.Helper()
	wpath, dpath := ombFiles(t, ombWorkloadText(change, extra), driver)
	return loadOMB(context.Background(), wpath, dpath, sets, seqNames(), builtinTypes()...)
}

// ombView is what a case checks of a translation: the first scenario's
// topics and workloads by kind.
type ombView struct {
	p         *Plan
	topics    []Topic
	producers []Workload
	consumers []Workload
	omb       *OMB
}

func viewOf(t *testing.T, o *OMB) ombView {
	t.Helper()
	scs, err := o.Plan.Scenarios()
	if err != nil || len(scs) != 1 {
		t.Fatalf("scenarios %v: %v", len(scs), err)
	}
	v := ombView{p: o.Plan, topics: scs[0].Topics, omb: o}
	for _, w := range scs[0].Workloads {
		switch w.Type {
		case Produce:
			v.producers = append(v.producers, w)
		case Consume:
			v.consumers = append(v.consumers, w)
		}
	}
	return v
}

// TestOMBTranslation: each OMB field, and each way --set reaches one,
// becomes what docs/omb.md says.
func TestOMBTranslation(t *testing.T) {
	t.Parallel()
	withDriver := func(old, new string) string { return strings.Replace(ombDriverText, old, new, 1) }
	tests := []struct {
		name   string
		change map[string]string
		driver string
		sets   []string
		check  func(t *testing.T, v ombView)
	}{
		{name: "name: the description; the file names the plan", check: func(t *testing.T, v ombView) {
			if v.p.Name != "w" || v.p.Description != "1 producer / 1 consumers on 1 topic (OpenMessaging Benchmark workload, driver Kafka)" {
				t.Errorf("name %q, description %q", v.p.Name, v.p.Description)
			}
		}},
		{name: "topics: one topic each, named as OMB names them, with its own workloads", change: map[string]string{"topics": "3", "producerRate": "9000"}, check: func(t *testing.T, v ombView) {
			if len(v.topics) != 3 || len(v.producers) != 3 || len(v.consumers) != 3 {
				t.Fatalf("%d topics, %d produce and %d consume workloads, want 3 each", len(v.topics), len(v.producers), len(v.consumers))
			}
			for i, tp := range v.topics {
				if want := fmt.Sprintf("test-topic-%07d-R", i); !strings.HasPrefix(tp.Name, want) || len(tp.Name) != len(want)+6 {
					t.Errorf("topic %d named %q, want %s + 6 characters", i, tp.Name, want)
				}
				if v.producers[i].Topic != tp.Name || v.consumers[i].Topic != tp.Name || tp.Existing != Recreate {
					t.Errorf("topic %q: producers on %q, consumers on %q, existing %q", tp.Name, v.producers[i].Topic, v.consumers[i].Topic, tp.Existing)
				}
			}
			src := v.p.OMB
			if src == nil || len(src.Topics) != 3 || src.Topics[2].Producers != v.producers[2].Name || src.Topics[2].Subscriptions[0] != v.consumers[2].Name || src.WorkloadFile != "w" {
				t.Errorf("OMB source %+v", src)
			}
		}},
		{name: "partitionsPerTopic", change: map[string]string{"partitionsPerTopic": "100"}, check: func(t *testing.T, v ombView) {
			if v.topics[0].Partitions != 100 {
				t.Errorf("partitions %d", v.topics[0].Partitions)
			}
		}},
		{name: "keyDistributor NO_KEY: no keys", change: map[string]string{"keyDistributor": `"NO_KEY"`}, check: func(t *testing.T, v ombView) {
			if m := v.producers[0].Message; m.KeyRange != 0 {
				t.Errorf("keys %d", m.KeyRange)
			}
		}},
		{name: "keyDistributor KEY_ROUND_ROBIN: OMB's keys in turn", change: map[string]string{"keyDistributor": "KEY_ROUND_ROBIN"}, check: func(t *testing.T, v ombView) {
			if m := v.producers[0].Message; m.KeyRange != 10000 || m.KeyDist != "sequential" || m.KeyFormat != "omb" {
				t.Errorf("keys %d %q %q", m.KeyRange, m.KeyDist, m.KeyFormat)
			}
		}},
		{name: "keyDistributor RANDOM_NANO: OMB's keys at random", change: map[string]string{"keyDistributor": "RANDOM_NANO"}, check: func(t *testing.T, v ombView) {
			if m := v.producers[0].Message; m.KeyRange != 10000 || m.KeyDist != "uniform" || m.KeyFormat != "omb" {
				t.Errorf("keys %d %q %q", m.KeyRange, m.KeyDist, m.KeyFormat)
			}
		}},
		{name: "payloadFile and messageSize: the whole file is every value", check: func(t *testing.T, v ombView) {
			m := v.producers[0].Message
			if !m.WholeFile || !strings.HasSuffix(m.PayloadFile, filepath.Join("payload", "payload-1Kb.data")) || m.Size != 0 {
				t.Errorf("message %+v", m)
			}
			if _, err := os.Stat(m.PayloadFile); err != nil || v.p.Dir != "" {
				t.Errorf("payload file %q (plan folder %q): %v", m.PayloadFile, v.p.Dir, err)
			}
		}},
		{name: "useRandomizedPayloads, randomBytesRatio, randomizedPayloadPoolSize: a pool", change: map[string]string{"payloadFile": "", "useRandomizedPayloads": "true", "randomBytesRatio": "0.5", "randomizedPayloadPoolSize": "1000"}, check: func(t *testing.T, v ombView) {
			if m := v.producers[0].Message; m.Size != 1024 || m.RandomRatio != 0.5 || m.Pool != 1000 || m.PayloadFile != "" {
				t.Errorf("message %+v", m)
			}
		}},
		{name: "a payloadFile beside randomized payloads is not read, and said", change: map[string]string{"useRandomizedPayloads": "true", "randomBytesRatio": "0.5", "randomizedPayloadPoolSize": "1000", "payloadFile": `"nowhere.data"`}, check: func(t *testing.T, v ombView) {
			if m := v.producers[0].Message; m.Pool != 1000 || m.PayloadFile != "" || !hasNote(v.omb, "payloadFile is not read") {
				t.Errorf("message %+v, notes %q", m, v.omb.Notes)
			}
		}},
		{name: "subscriptionsPerTopic and consumerPerSubscription: consumer groups", change: map[string]string{"subscriptionsPerTopic": "2", "consumerPerSubscription": "3"}, check: func(t *testing.T, v ombView) {
			if len(v.consumers) != 2 {
				t.Fatalf("%d consume workloads, want 2", len(v.consumers))
			}
			for j, c := range v.consumers {
				if !strings.HasPrefix(c.Group, fmt.Sprintf("sub-%03d-", j)) || c.Name != c.Group || c.Clients != 3 {
					t.Errorf("consumers %q: group %q, %d clients", c.Name, c.Group, c.Clients)
				}
				if _, ok := c.Properties["group.id"]; ok || c.Properties["enable.auto.commit"] != "false" {
					t.Errorf("consumer properties %v", c.Properties)
				}
			}
			if !v.producers[0].SendTimeHeader {
				t.Error("producers do not stamp their send time for the consumers' end-to-end latency")
			}
		}},
		{name: "subscriptionsPerTopic 0: producers alone", change: map[string]string{"subscriptionsPerTopic": "0", "consumerPerSubscription": "0"}, check: func(t *testing.T, v ombView) {
			if len(v.consumers) != 0 || v.producers[0].SendTimeHeader {
				t.Errorf("%d consume workloads, stamped %v", len(v.consumers), v.producers[0].SendTimeHeader)
			}
		}},
		{name: "producersPerTopic: clients", change: map[string]string{"producersPerTopic": "4"}, check: func(t *testing.T, v ombView) {
			if v.producers[0].Clients != 4 {
				t.Errorf("clients %d", v.producers[0].Clients)
			}
		}},
		{name: "producerRate: split over the topics", change: map[string]string{"topics": "3", "producerRate": "10000"}, check: func(t *testing.T, v ombView) {
			for _, p := range v.producers {
				if d := p.Rate - 10000.0/3; d > 1e-6 || d < -1e-6 || p.MaxRate != nil {
					t.Errorf("%s: rate %v", p.Name, p.Rate)
				}
			}
		}},
		{name: "producerRate 0: OMB's balanced-rate search, over every topic", change: map[string]string{"producerRate": "0", "topics": "2"}, check: func(t *testing.T, v ombView) {
			for _, p := range v.producers {
				if !p.Balanced || p.MaxRate != nil || p.Rate != 0 || p.Duration != 16*time.Minute {
					t.Fatalf("%s: balanced %v, search %+v, rate %v, duration %s", p.Name, p.Balanced, p.MaxRate, p.Rate, p.Duration)
				}
			}
			if !hasNote(v.omb, "producerRate 0: OMB's balanced-rate search, as OMB runs it") {
				t.Errorf("notes %q", v.omb.Notes)
			}
		}},
		{name: "consumerBacklogSizeGB: consumers start on the backlog and read from the start", change: map[string]string{"consumerBacklogSizeGB": "2", "subscriptionsPerTopic": "2", "producerRate": "1024", "testDurationMinutes": "5"}, check: func(t *testing.T, v ombView) {
			// 2 GiB over 2 subscriptions is 1 GiB of values, written at
			// 1024 × 1 KiB/s in 1024 s, after the 1-minute warm-up.
			for _, c := range v.consumers {
				if c.Backlog != 1<<30 || c.StartAfter != time.Minute {
					t.Errorf("%s: backlog %d, start after %s", c.Name, c.Backlog, c.StartAfter)
				}
			}
			if d := v.producers[0].Duration; d != 1024*time.Second+5*time.Minute {
				t.Errorf("producers run %s, want the build (1024 s) and the test (5m)", d)
			}
			if !hasNote(v.omb, "backlog: the consumers start once the producers have written 1 GiB") {
				t.Errorf("notes %q", v.omb.Notes)
			}
		}},
		{name: "backlogDrainRatio 1", change: map[string]string{"backlogDrainRatio": "1.0"}, check: func(t *testing.T, v ombView) {}},
		{name: "testDurationMinutes and warmupDurationMinutes (default 1)", change: map[string]string{"testDurationMinutes": "5"}, check: func(t *testing.T, v ombView) {
			if p := v.producers[0]; p.Duration != 6*time.Minute || p.WarmupDuration != time.Minute {
				t.Errorf("duration %s, warm-up %s", p.Duration, p.WarmupDuration)
			}
		}},
		{name: "warmupDurationMinutes 0", change: map[string]string{"warmupDurationMinutes": "0"}, check: func(t *testing.T, v ombView) {
			if p := v.producers[0]; p.Duration != 15*time.Minute || p.WarmupDuration != 0 {
				t.Errorf("duration %s, warm-up %s", p.Duration, p.WarmupDuration)
			}
		}},
		{name: "driver: replicationFactor, topicConfig, commonConfig, producerConfig, consumerConfig", check: func(t *testing.T, v ombView) {
			tp := v.topics[0]
			if tp.Replication != 3 || tp.Configs["min.insync.replicas"] != "2" || len(tp.Configs) != 1 {
				t.Errorf("topic %+v", tp)
			}
			cl := v.p.Cluster
			if cl.Bootstrap != "localhost:9092" || cl.Properties["default.api.timeout.ms"] != "1200000" || len(cl.Properties) != 1 {
				t.Errorf("cluster %+v", cl)
			}
			// request.timeout.ms=1200000 is longer than franz-go's consumers
			// take: the producers get it, the consumers 15 minutes.
			// And Java's delivery timeout for them (linger.ms + request.timeout.ms),
			// so that they wait for their last records as OMB's do.
			if p := v.producers[0].Properties; p["acks"] != "all" || p["linger.ms"] != "1" || p["batch.size"] != "1048576" || p["request.timeout.ms"] != "1200000" || p["delivery.timeout.ms"] != "1200001" {
				t.Errorf("producer properties %v", p)
			}
			if c := v.consumers[0].Properties; c["auto.offset.reset"] != "earliest" || c["max.partition.fetch.bytes"] != "10485760" || c["request.timeout.ms"] != "900000" {
				t.Errorf("consumer properties %v", c)
			}
		}},
		{name: "driver: properties as Java reads them", driver: withDriver("producerConfig: |\n  acks=all", "producerConfig: |\n  # a comment\n  acks : 1\n  compression.type zstd\n  client.id=a\\\n     b\n  acks=all"), check: func(t *testing.T, v ombView) {
			if p := v.producers[0].Properties; p["acks"] != "all" || p["compression.type"] != "zstd" || p["client.id"] != "ab" {
				t.Errorf("producer properties %v", p)
			}
		}},
		{name: "driver: Java's delivery timeout, unless the driver gives one", driver: withDriver("  request.timeout.ms=1200000\n", ""), check: func(t *testing.T, v ombView) {
			if d := v.producers[0].Properties["delivery.timeout.ms"]; d != "120000" || !hasNote(v.omb, "delivery.timeout.ms=120000") {
				t.Errorf("delivery.timeout.ms %q, notes %q", d, v.omb.Notes)
			}
		}},
		{name: "driver: its own delivery timeout", driver: withDriver("linger.ms=1", "linger.ms=1\n  delivery.timeout.ms=1300000"), check: func(t *testing.T, v ombView) {
			if d := v.producers[0].Properties["delivery.timeout.ms"]; d != "1300000" || hasNote(v.omb, "delivery.timeout.ms=") {
				t.Errorf("delivery.timeout.ms %q, notes %q", d, v.omb.Notes)
			}
		}},
		{name: "driver: no bootstrap.servers runs a local cluster", driver: withDriver("  bootstrap.servers=localhost:9092\n", ""), check: func(t *testing.T, v ombView) {
			if v.p.Cluster.Bootstrap != "" || !hasNote(v.omb, "kbench starts a local Apache Kafka") {
				t.Errorf("bootstrap %q, notes %q", v.p.Cluster.Bootstrap, v.omb.Notes)
			}
		}},
		{name: "driver: consumerConfig's group.id gives way to the subscriptions", driver: withDriver("auto.offset.reset=earliest", "auto.offset.reset=earliest\n  group.id=mine"), check: func(t *testing.T, v ombView) {
			if _, ok := v.consumers[0].Properties["group.id"]; ok || !hasNote(v.omb, "group.id is not used") {
				t.Errorf("consumer properties %v, notes %q", v.consumers[0].Properties, v.omb.Notes)
			}
		}},
		{name: "--set: OMB fields, with units below OMB's steps", sets: []string{"producerRate=5000", "testDurationMinutes=30s", "warmupDurationMinutes=5s", "consumerBacklogSizeGB=64MiB", "keyDistributor=RANDOM_NANO"}, check: func(t *testing.T, v ombView) {
			p, c := v.producers[0], v.consumers[0]
			// 64 MiB at 5000 × 1 KiB/s is written in 13.1 s: the consumers
			// start then, the producers run 30 s more.
			if p.Rate != 5000 || p.WarmupDuration != 5*time.Second || p.Duration != 44*time.Second || c.Backlog != 64<<20 || p.Message.KeyDist != "uniform" {
				t.Errorf("rate %v warm-up %s duration %s backlog %d keys %q", p.Rate, p.WarmupDuration, p.Duration, c.Backlog, p.Message.KeyDist)
			}
		}},
		{name: "--set: driver fields and properties", sets: []string{"driver.replicationFactor=1", `driver.topicConfig.min\.insync\.replicas=1`, `driver.producerConfig.linger\.ms=5`, `driver.commonConfig.bootstrap\.servers=127.0.0.1:9999`}, check: func(t *testing.T, v ombView) {
			if tp := v.topics[0]; tp.Replication != 1 || tp.Configs["min.insync.replicas"] != "1" {
				t.Errorf("topic %+v", tp)
			}
			if v.producers[0].Properties["linger.ms"] != "5" || v.p.Cluster.Bootstrap != "127.0.0.1:9999" {
				t.Errorf("linger.ms %q, bootstrap %q", v.producers[0].Properties["linger.ms"], v.p.Cluster.Bootstrap)
			}
		}},
		{name: "--set: kbench plan fields; a local cluster instead of the driver's", sets: []string{"repeat=3", "cluster.local.brokers=3"}, check: func(t *testing.T, v ombView) {
			if v.p.Repeat != 3 || v.p.Cluster.Local.Brokers != 3 || v.p.Cluster.Bootstrap != "" || !hasNote(v.omb, "is replaced by the cluster your --set names") {
				t.Errorf("repeat %d, cluster %+v, notes %q", v.p.Repeat, v.p.Cluster, v.omb.Notes)
			}
		}},
		{name: "--set: kbench plan fields of a workload", sets: []string{"workloads[1].timeout=3s"}, check: func(t *testing.T, v ombView) {
			if v.consumers[0].Timeout != 3*time.Second {
				t.Errorf("timeout %s", v.consumers[0].Timeout)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			driver := tt.driver
			if driver == "" {
				driver = ombDriverText
			}
			o, err := loadTestOMB(t, tt.change, "", driver, tt.sets)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, viewOf(t, o))
			// The kbench plan printed for the translation loads as any plan
			// and is the same plan.
			p2, err := testParse("from-omb.yaml", o.YAML, nil)
			if err != nil {
				t.Fatalf("the translated plan does not load: %v\n%s", err, o.YAML)
			}
			a, _ := o.Plan.Scenarios()
			b, _ := p2.Scenarios()
			if !reflect.DeepEqual(bare(a[0].Workloads), bare(b[0].Workloads)) || !reflect.DeepEqual(a[0].Topics, b[0].Topics) ||
				!reflect.DeepEqual(o.Plan.Cluster, p2.Cluster) || p2.Repeat != o.Plan.Repeat || p2.Name != o.Plan.Name {
				t.Errorf("the plan printed differs from the plan run:\n%s", o.YAML)
			}
			seen := map[string]bool{}
			for _, f := range o.Fields {
				seen[f.File+"."+f.Field] = true
			}
			for _, f := range ombWorkloadFields {
				if !seen["workload."+f] {
					t.Errorf("workload field %s has no translation line", f)
				}
			}
			for _, f := range ombDriverFields {
				if !seen["driver."+f] {
					t.Errorf("driver field %s has no translation line", f)
				}
			}
		})
	}
}

// bare is ws without where each value was written.
func bare(ws []Workload) []Workload {
	out := make([]Workload, len(ws))
	for i, w := range ws {
		w.afterNode, w.verifyNode, w.topicNode, w.rateNode = nil, nil, nil, nil
		out[i] = w
	}
	return out
}

func hasNote(o *OMB, part string) bool {
	for _, n := range o.Notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// TestOMBExamples: the OMB workloads in examples/omb, OMB's own files,
// translate with their driver unchanged.
func TestOMBExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../examples/omb/workloads/*.yaml")
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		o, err := testLoadOMB(t.Context(), f, "../../examples/omb/driver-kafka/kafka-throughput.yaml", nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(o.Fields) != len(ombWorkloadFields)+len(ombDriverFields) {
			t.Errorf("%s: %d translation lines", f, len(o.Fields))
		}
	}
}
