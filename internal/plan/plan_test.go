package plan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/load"
	"github.com/kbench/kbench/internal/payload"
	"github.com/kbench/kbench/internal/userr"
)

const good = `name: sweep
cluster:
  properties: {client.id: kbench}
topics:
  - name: perf-${record_size}
    partitions: 10
    replication: 3
    configs: {min.insync.replicas: 2}
workloads:
  - name: producers
    type: produce
    topic: perf-${record_size}
    clients: 3
    properties: {acks: 1, batch.size: 8196}
    message:
      size: ${record_size}
    rate: 25k/s
    records: 20M
    warmup: 10s
  - name: readers
    type: consume
    topic: perf-${record_size}
    group: readers
matrix:
  record_size: [1, 1KiB]
repeat: 5
`

func TestParseGood(t *testing.T) {
	p, err := testParse("plan.yaml", []byte(good), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if p.Name != "sweep" || p.Repeat != 5 || len(scs) != 2 {
		t.Fatalf("plan %+v, %d scenarios", p, len(scs))
	}
	sc := scs[1]
	if sc.Name != "record_size=1KiB" || sc.Index != 2 || len(sc.Params) != 1 || sc.Params[0] != (Param{"record_size", "1KiB"}) {
		t.Errorf("scenario 2: %q %+v", sc.Name, sc.Params)
	}
	wantTopic := Topic{Name: "perf-1KiB", Partitions: 10, Replication: 3, Configs: map[string]string{"min.insync.replicas": "2"}, Existing: Recreate}
	if got := sc.Topics[0]; got.Name != wantTopic.Name || got.Partitions != 10 || got.Replication != 3 || got.Existing != Recreate || got.Configs["min.insync.replicas"] != "2" {
		t.Errorf("topic %+v, want %+v", got, wantTopic)
	}
	w := sc.Workloads[0]
	if w.Message.Size != 1024 || w.Rate != 25000 || w.Records != 20_000_000 || w.WarmupDuration != 10*time.Second || w.Clients != 3 || w.Properties["acks"] != "1" {
		t.Errorf("producer %+v", w)
	}
	r := sc.Workloads[1]
	if r.Type != Consume || r.Group != "readers" || r.Timeout != DefaultIdleTimeout || r.Clients != 1 {
		t.Errorf("consumer %+v", r)
	}
	if p.Cluster.Properties["client.id"] != "kbench" || p.Cluster.Bootstrap != "" {
		t.Errorf("cluster %+v", p.Cluster)
	}
	if got := p.Parameters(); len(got) != 1 || got[0] != "record_size" {
		t.Errorf("Parameters() = %q", got)
	}
}

func TestParseSet(t *testing.T) {
	sets := []string{"repeat=2", "workloads[0].records=50k", "cluster.bootstrap=h1:9092,h2:9092",
		`cluster.properties.linger\.ms=5`, "matrix.record_size={10,100,1000}", "workloads[1].group=other"}
	p, err := testParse("plan.yaml", []byte(good), sets)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if p.Repeat != 2 || len(scs) != 3 || scs[2].Workloads[0].Records != 50_000 || scs[2].Workloads[0].Message.Size != 1000 {
		t.Fatalf("after --set: repeat %d, %d scenarios, %+v", p.Repeat, len(scs), scs)
	}
	if p.Cluster.Bootstrap != "h1:9092,h2:9092" || p.Cluster.Properties["linger.ms"] != "5" || scs[0].Workloads[1].Group != "other" {
		t.Errorf("cluster %+v, group %q", p.Cluster, scs[0].Workloads[1].Group)
	}
	if !strings.Contains(string(p.Redacted()), "h1:9092,h2:9092") {
		t.Errorf("the plan as run lacks the --set value:\n%s", p.Redacted())
	}
}

func TestParseRedactsSecrets(t *testing.T) {
	plan := strings.Replace(good, "{client.id: kbench}", "{client.id: kbench, sasl.jaas.config: 'secret stuff', ssl.truststore.password: hunter2}", 1)
	p, err := testParse("plan.yaml", []byte(plan), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := string(p.Redacted())
	if strings.Contains(out, "hunter2") || strings.Contains(out, "secret stuff") || !strings.Contains(out, "[redacted]") {
		t.Errorf("secrets not redacted:\n%s", out)
	}
}

func TestParseListMatrixAndMappingValues(t *testing.T) {
	plan := `name: m
topics: [{name: "t-${p}", partitions: "${p}"}]
workloads:
  - name: w
    type: end-to-end
    topic: t-${p}
    message: ${message}
    duration: 30s
    rate: 1k/s
matrix:
  - {p: 1, message: {size: 100}}
  - {p: 10, message: {payload_file: data.json, delimiter: ","}}
`
	p, err := testParse("plan.yaml", []byte(plan), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if len(scs) != 2 || scs[0].Topics[0].Partitions != 1 || scs[1].Topics[0].Partitions != 10 {
		t.Fatalf("%+v", scs)
	}
	if m := scs[1].Workloads[0].Message; m.PayloadFile != "data.json" || m.Delimiter != "," {
		t.Errorf("message %+v", m)
	}
	if scs[1].Name != "p=10 message=payload_file=data.json,delimiter=," {
		t.Errorf("name %q", scs[1].Name)
	}
	if d, ok := scs[0].Estimate(); !ok || d != 30*time.Second {
		t.Errorf("Estimate = %v, %v", d, ok)
	}
}

// TestParseBad: every error names file:line:column (or the --set), the
// field's path and how to fix it; all errors are reported at once.
func TestParseBad(t *testing.T) {
	const w0 = "workloads:\n  - name: p\n    type: produce\n    topic: t\n    message: {size: 100}\n    records: 1000\n"
	tests := []struct {
		name, plan string
		sets       []string
		want       []string
	}{
		{"syntax", "name: x\nworkloads: [\n", nil, []string{"plan.yaml:3: YAML syntax error"}},
		{"flow param", "name: x\n" + "workloads: [{name: p, size: ${s}}]\n", nil, []string{`plan.yaml:2: YAML syntax error in the list or mapping that starts at line 2: did not find expected ',' or '}'; inside {...} or [...] put a value with a parameter in quotes`}},
		// Regression: a parameter inside a word (t-${acks}) got no hint.
		{"flow param in a word", "name: x\n" + "workloads:\n  - {name: p, type: produce,\n     topic: t-${acks}, records: 1}\n", nil, []string{`put a value with a parameter in quotes: {size: "${size}"}, {topic: "t-${acks}"}`}},
		{"not a mapping", "- a\n- b\n", nil, []string{"plan.yaml:1:1: the plan is a list; write a mapping"}},
		{"empty", "", nil, []string{"plan.yaml: the plan is empty"}},
		{"missing name", w0, nil, []string{"plan.yaml:1:1: name: missing; give the plan a name"}},
		{"missing workloads", "name: x\n", nil, []string{"plan.yaml:1:1: workloads: missing; a plan needs at least one workload"}},
		{"unknown top field", "name: x\nrepeats: 2\n" + w0, nil, []string{`plan.yaml:2:1: unknown field "repeats"; did you mean "repeat"?`}},
		{"unknown workload field", "name: x\n" + w0 + "    rates: 5k/s\n", nil, []string{`plan.yaml:8:5: workloads[0]: unknown field "rates"; did you mean "rate"?`}},
		{"bad rate", "name: x\n" + w0 + "    rate: fast\n", nil, []string{`plan.yaml:8:11: workloads[0].rate: "fast" is not a rate; write 25000/s, 25k/s, 1.5M/s, 600/m or unlimited`}},
		{"bad type", "name: x\nworkloads:\n  - {name: p, type: consumer, topic: t}\n", nil, []string{`plan.yaml:3:21: workloads[0].type: "consumer" is not one of produce, consume, share-consume, end-to-end or round-trip; did you mean "consume"?`}},
		{"missing topic and type", "name: x\nworkloads:\n  - name: p\n", nil, []string{"plan.yaml:3:5: workloads[0].type: missing", "plan.yaml:3:5: workloads[0].topic: missing"}},
		{"no stop", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, message: {size: 1}}\n", nil, []string{"plan.yaml:3:5: workloads[0].records: missing; say when to stop with records: 1M or duration: 60s"}},
		{"no message", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5}\n", nil, []string{"plan.yaml:3:5: workloads[0].message: missing"}},
		{"warmup too long", "name: x\n" + w0 + "    warmup: 1000\n", nil, []string{"plan.yaml:8:13: workloads[0].warmup: 1000 warm-up records leave none of the 1000 records to measure"}},
		{"size and file", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {size: 1, payload_file: f}}\n", nil, []string{"plan.yaml:3:85: workloads[0].message: gives size and payload_file; keep one of size, payload_file, template or template_file"}},
		{"size unit case", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {size: 4kib}}\n", nil, []string{`plan.yaml:3:68: workloads[0].message.size: "4kib": write the unit as KiB`}},
		{"consume with rate", "name: x\nworkloads:\n  - {name: c, type: consume, topic: t, rate: 5k/s}\n", nil, []string{"plan.yaml:3:46: workloads[0].rate: a consume workload sends nothing"}},
		{"clients 0", "name: x\n" + w0 + "    clients: 0\n", nil, []string{"plan.yaml:8:14: workloads[0].clients: 0 is out of range; write a whole number from 1 to 1000"}},
		{"duplicate workload", "name: x\n" + w0 + "  - {name: p, type: consume, topic: t}\n", nil, []string{`plan.yaml:8:5: workloads[1].name: workload "p" is named twice`}},
		{"repeat 0", "name: x\nrepeat: 0\n" + w0, nil, []string{"plan.yaml:2:9: repeat: 0 is out of range; write a whole number from 1 to 1000"}},
		{"topic partitions missing", "name: x\ntopics: [{name: t}]\n" + w0, nil, []string{"plan.yaml:2:10: topics[0].partitions: missing; give the partition count (existing: recreate creates the topic)"}},
		{"bad existing", "name: x\ntopics: [{name: t, partitions: 1, existing: keep}]\n" + w0, nil, []string{`plan.yaml:2:45: topics[0].existing: "keep" is not one of recreate, reuse or fail`}},
		{"illegal topic", "name: x\ntopics: [{name: 'a b', partitions: 1}]\n" + w0, nil, []string{`plan.yaml:2:17: topics[0].name: "a b" is not a legal topic name`}},
		{"undefined param", "name: x\n" + strings.Replace(w0, "size: 100", "size: \"${sz}\"", 1), nil, []string{"plan.yaml:6:21: workloads[0].message.size: ${sz} is not a matrix parameter; add it to matrix"}},
		{"unused param", "name: x\n" + w0 + "matrix: {sz: [1]}\n", nil, []string{"plan.yaml:8:10: matrix.sz: is not used; reference it as ${sz}"}},
		{"bad param name", "name: x\n" + w0 + "matrix: {record-size: [1]}\n", nil, []string{`plan.yaml:8:10: matrix: "record-size" is not a parameter name`}},
		{"empty matrix list", "name: x\n" + strings.Replace(w0, "size: 100", "size: \"${sz}\"", 1) + "matrix: {sz: []}\n", nil, []string{"plan.yaml:8:14: matrix.sz: is an empty list"}},
		{"substituted value", "name: x\n" + strings.Replace(w0, "size: 100", "size: \"${sz}\"", 1) + "matrix: {sz: [10, abc]}\n", nil, []string{`plan.yaml:6:21: workloads[0].message.size: "abc" is not a size; write a number of bytes such as 100, 100B, 4KB (4,000 B), 4KiB (4,096 B), 1MB or 1MiB (${sz} = abc)`}},
		{"param in cluster", "name: x\ncluster: {bootstrap: \"${h}\"}\n" + w0, nil, []string{"plan.yaml:2:22: cluster.bootstrap: ${h}: matrix parameters apply to topics, workloads, faults and cluster.broker_configs only"}},
		{"local brokers", "name: x\ncluster: {local: {brokers: 12}}\n" + w0, nil, []string{"plan.yaml:2:28: cluster.local.brokers: 12 is out of range; write a whole number from 1 to 9"}},
		{"set index out of range", "name: x\n" + w0, []string{"workloads[3].records=1"}, []string{"--set workloads[3].records=1: workloads has 1 entries (indexes 0 to 0)"}},
		{"set without =", "name: x\n" + w0, []string{"repeat"}, []string{"--set repeat: no '='"}},
		{"set bad value", "name: x\n" + w0, []string{"workloads[0].rate=fast"}, []string{`--set workloads[0].rate=fast: workloads[0].rate: "fast" is not a rate`}},
		{"anchors", "name: x\nx: &a 1\n", nil, []string{"plan.yaml: the plan uses YAML anchors or aliases"}},
		{"vus 0", "name: x\n" + w0 + "    vus: 0\n", nil, []string{"plan.yaml:8:10: workloads[0].vus: 0 virtual users send nothing; give 1 or more (0 is only a ramp's start)"}},
		{"vus and rate", "name: x\n" + w0 + "    vus: 10\n    rate: 5k/s\n", nil, []string{"plan.yaml:9:11: workloads[0].rate: virtual users send as fast as acknowledgements come back"}},
		{"random ratio", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {size: 10, random_ratio: 1.5}}\n", nil,
			[]string{`plan.yaml:3:86: workloads[0].message.random_ratio: "1.5": write a number from 0 to 1`}},
		// Regressions: NaN passed range checks (NaN < 0 and NaN > 1 are false).
		{"random ratio NaN", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {size: 10, random_ratio: NaN}}\n", nil,
			[]string{`plan.yaml:3:86: workloads[0].message.random_ratio: "NaN": write a number from 0 to 1`}},
		{"weight NaN", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {template: {c: {_type: one_of, _values: [a, b], _weights: [1, NaN]}}}}\n", nil,
			[]string{`plan.yaml:3:123: workloads[0].message.template.c._weights[1]: "NaN" is not a weight`}},
		{"key distribution", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {size: 10, key: {distribution: zipf, count: 10}}}\n", nil,
			[]string{`plan.yaml:3:92: workloads[0].message.key.distribution: "zipf" is not one of uniform, sequential or zipfian`}},
		{"max without slo", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max}\n", nil,
			[]string{"plan.yaml:3:81: workloads[0].slo: missing; rate: max searches for the highest rate that keeps an SLO"}},
		{"balanced without a consumer", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: balanced}\n", nil,
			[]string{"plan.yaml:3:81: workloads[0].rate: balanced needs a consume workload reading what it writes"}},
		{"balanced without a duration", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {size: 10}, rate: balanced}\n  - {name: c, type: consume, topic: t}\n", nil,
			[]string{"plan.yaml:3:79: workloads[0].duration: missing; rate: balanced adjusts the rate", "plan.yaml:3:49: workloads[0].records: rate: balanced sets the rate for a duration; leave out records"}},
		{"balanced end-to-end", "name: x\nworkloads:\n  - {name: p, type: end-to-end, topic: t, duration: 5s, message: {size: 10}, rate: balanced}\n  - {name: c, type: consume, topic: t}\n", nil,
			[]string{"plan.yaml:3:84: workloads[0].rate: balanced applies to produce workloads"}},
		{"slo without max", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: 1k/s, slo: {p99: 5ms}}\n", nil,
			[]string{"plan.yaml:3:92: workloads[0].slo: goes with rate: max"}},
		{"slo confirm 0", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max, slo: {p99: 5ms, confirm: 0}}\n", nil,
			[]string{"plan.yaml:3:111: workloads[0].slo.confirm: 0 is out of range; write a whole number from 1 to 9"}},
		{"slo warm_cluster not a duration", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max, slo: {p99: 5ms, warm_cluster: soon}}\n", nil,
			[]string{`plan.yaml:3:116: workloads[0].slo.warm_cluster: "soon" is not a duration`}},
		{"slo two percentiles", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max, slo: {p99: 5ms, p50: 1ms}}\n", nil,
			[]string{"plan.yaml:3:91: workloads[0].slo: name one percentile and its limit"}},
		{"slo floor above start", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max, slo: {p99: 5ms, start: 2k/s, floor: 5k/s}}\n", nil,
			[]string{"plan.yaml:3:122: workloads[0].slo.floor: 5k/s is above start (2000 records/s); the floor is the lowest rate the search asks"}},
		{"slo floor not a rate", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max, slo: {p99: 5ms, floor: low}}\n", nil,
			[]string{`plan.yaml:3:109: workloads[0].slo.floor: "low" is not a rate`}},
		{"slo ceiling below start", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max, slo: {p99: 5ms, ceiling: 500/s}}\n", nil,
			[]string{"plan.yaml:3:111: workloads[0].slo.ceiling: 500/s is below start (1000 records/s)"}},
		{"slo max_time 0", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max, slo: {p99: 5ms, max_time: 0s}}\n", nil,
			[]string{`plan.yaml:3:112: workloads[0].slo.max_time: "0s": a duration must be above 0`}},
		{"unknown faker", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {template: {e: {_type: faker.emial}}}}\n", nil,
			[]string{`plan.yaml:3:84: workloads[0].message.template.e._type: "faker.emial" is not a faker generator; did you mean "faker.email"?`}},
		{"backlog on a producer", "name: x\n" + w0 + "    backlog: 5GB\n", nil, []string{"plan.yaml:8:14: workloads[0].backlog: only consume workloads wait for a backlog; start this workload with start_after"}},
		{"start_after an unknown workload", "name: x\n" + w0 + "  - {name: readers, type: consume, topic: t, start_after: producer}\n", nil,
			[]string{`plan.yaml:8:59: workloads[1].start_after: "producer" is neither a duration (30s, 2m) nor a workload of the plan; give a duration or one of p or readers`}},
		{"start_after itself", "name: x\n" + w0 + "    start_after: p\n", nil, []string{"plan.yaml:8:18: workloads[0].start_after: a workload cannot wait for its own end"}},
		{"start_after in a circle", "name: x\n" + w0 + "    start_after: r\n  - {name: r, type: consume, topic: t, start_after: p}\n", nil,
			[]string{"plan.yaml:8:18: workloads[0].start_after: workloads wait for each other in a circle (p waits for r, which waits for it)"}},
		{"start_after not a duration", "name: x\n" + w0 + "    start_after: 5\n", nil, []string{"plan.yaml:8:18: workloads[0].start_after:"}},
		{"warmup neither", "name: x\n" + w0 + "    warmup: 5 seconds\n", nil, []string{`plan.yaml:8:13: workloads[0].warmup: "5 seconds" is neither a record count (100k) nor a duration (10s)`}},
		{"unknown generator", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {template: {id: {_type: uuid4}}}}\n", nil,
			[]string{`plan.yaml:3:85: workloads[0].message.template.id._type: "uuid4" is not a generator; did you mean "uuid"?`}},
		{"min above max", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {template: {v: {_type: random_int, _min: 9, _max: 1}}}}\n", nil,
			[]string{"plan.yaml:3:76: workloads[0].message.template.v._min: 9 is above _max 1; swap them"}},
		{"generator param", "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {template: {v: {_type: random_string, _len: 4}}}}\n", nil,
			[]string{`plan.yaml:3:99: workloads[0].message.template.v._len: random_string takes no "_len"; it takes _length`}},
		{"threshold metric", "name: x\n" + w0 + "    thresholds: {p99ms: '<= 50'}\n", nil, []string{`plan.yaml:8:18: workloads[0].thresholds.p99ms: is not a threshold metric; did you mean p99_ms?`}},
		{"threshold no operator", "name: x\n" + w0 + "    thresholds: {p99_ms: 50}\n", nil, []string{`plan.yaml:8:26: workloads[0].thresholds.p99_ms: "50" is not a condition; write an operator`}},
		{"threshold not a number", "name: x\n" + w0 + "    thresholds: {errors: '== none'}\n", nil, []string{`plan.yaml:8:26: workloads[0].thresholds.errors: "== none": "none" is not a number`}},
		{"thresholds a list", "name: x\n" + w0 + "    thresholds: [p99_ms]\n", nil, []string{`plan.yaml:8:17: workloads[0].thresholds: is a list; write a mapping such as`}},
		{"all at once", "name: x\nrepeat: 0\n" + w0 + "    rate: fast\n", nil, []string{"2 problems in the plan:", "plan.yaml:2:9: repeat:", "plan.yaml:9:11: workloads[0].rate:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := testParse("plan.yaml", []byte(tt.plan), tt.sets)
			if err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			if !userr.Is(err) {
				t.Errorf("not a user error (exit 2): %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain:\n%s", err, w)
				}
			}
			var ps Problems
			if errors.As(err, &ps) && len(ps) == 1 && !strings.HasPrefix(err.Error(), tt.want[0]) {
				t.Errorf("error %q does not start with %q", err, tt.want[0])
			}
		})
	}
}

func TestLoadExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		p, err := testLoad(t.Context(), f, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		scs, _ := p.Scenarios()
		for _, sc := range scs {
			for _, w := range sc.Workloads {
				if w.Message.PayloadFile != "" {
					if _, err := os.Stat(filepath.Join(p.Dir, w.Message.PayloadFile)); err != nil {
						t.Errorf("%s: %s: payload file: %v", f, sc.Name, err)
					}
				}
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good), "repeat=2")
	f.Add([]byte("name: x\nworkloads: [{name: a, type: produce, topic: t, records: 1, message: {size: 1}}]\n"), "workloads[0].rate=5k/s")
	if files, _ := filepath.Glob("../../examples/*.yaml"); len(files) > 0 {
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data, "matrix.x={1,2}")
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		p, err := testParse("fuzz.yaml", data, []string{set})
		if err == nil && p == nil {
			t.Fatal("no plan and no error")
		}
	})
}

// TestParseStudyTemplate: the virtual-users study's template, exactly as
// its k6 plan writes it, renders to its JSON message.
func TestParseStudyTemplate(t *testing.T) {
	text := `name: vu
workloads:
  - name: p
    type: produce
    topic: t
    duration: 10s
    message:
      seed: 7
      template:
        id: { "_type": "uuid" }
        name: { "_type": "constant", "_value": "name" }
        description: { "_type": "random_string", "_length": 40 }
        value: { "_type": "random_int", "_min": 0, "_max": 100 }
        timestamp: { "_type": "now", "_format": "epoch_millis" }
        tags: [a, 1, true, null]
`
	p, err := testParse("plan.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	m := scs[0].Workloads[0].Message
	if m.Template == nil || m.Seed != 7 {
		t.Fatalf("message %+v", m)
	}
	src, err := payload.CompileTemplate(*m.Template, m.Seed)
	if err != nil {
		t.Fatal(err)
	}
	v := string(src.Value(0))
	if !regexp.MustCompile(`^\{"id":"[0-9a-f-]{36}","name":"name","description":"[A-Za-z0-9]{40}","value":\d+,"timestamp":\d{13},"tags":\["a",1,true,null\]\}$`).MatchString(v) {
		t.Fatalf("rendered %s", v)
	}
}

func TestParseThresholds(t *testing.T) {
	const w0 = "name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {size: 10}, thresholds: {p99_ms: '<= 50', records_per_sec: '>=100k', errors: '== 0'}}\n"
	p, err := testParse("plan.yaml", []byte(w0), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, err := p.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	got := scs[0].Workloads[0].Thresholds
	want := []Threshold{{"errors", "==", 0, "== 0"}, {"p99_ms", "<=", 50, "<= 50"}, {"records_per_sec", ">=", 100000, ">= 100k"}}
	if len(got) != len(want) {
		t.Fatalf("thresholds %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("threshold %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, tt := range []struct {
		th   Threshold
		v    float64
		want bool
	}{
		{want[0], 0, true}, {want[0], 1, false},
		{want[1], 50, true}, {want[1], 50.001, false},
		{want[2], 99999, false}, {want[2], 100000, true},
		{Threshold{Op: "!=", Value: 3}, 3, false}, {Threshold{Op: "<", Value: 3}, 2, true}, {Threshold{Op: ">", Value: 3}, 3, false},
	} {
		if got := tt.th.Holds(tt.v); got != tt.want {
			t.Errorf("%s %s holds for %v: %v, want %v", tt.th.Metric, tt.th.Condition, tt.v, got, tt.want)
		}
	}
}

func TestParseStages(t *testing.T) {
	text := "name: s\nworkloads:\n  - name: p\n    type: produce\n    topic: t\n    message: {size: 10}\n    stages: [{duration: 1m, rate: 10k/s}, {duration: 2m, rate: 50k/s}, {duration: 30s, rate: 0/s}]\n"
	p, err := testParse("plan.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	w := scs[0].Workloads[0]
	if len(w.Stages) != 3 || w.Stages[1].Rate != 50000 || w.Stages[2].Rate != 0 || w.Duration != 210*time.Second {
		t.Fatalf("stages %+v, duration %v", w.Stages, w.Duration)
	}
	if d, ok := scs[0].Estimate(); !ok || d != 210*time.Second {
		t.Fatalf("Estimate = %v %v", d, ok)
	}
	for _, bad := range []struct{ stages, want string }{
		{"[{duration: 1m}]", "plan.yaml:7:14: workloads[0].stages[0]: needs a duration and one of rate (records/s) or vus (virtual users)"},
		{"[{duration: 1m, rate: fast}]", `plan.yaml:7:35: workloads[0].stages[0].rate: "fast" is not a rate`},
		{"[]", "plan.yaml:7:13: workloads[0].stages: is an empty list: a load needs at least one stage"},
		{"[{duration: 1m, rate: 1k/s}]\n    rate: 5k/s", "plan.yaml:8:11: workloads[0].rate: stages set the rate and the duration; leave out rate"},
	} {
		text := strings.Replace("name: s\nworkloads:\n  - name: p\n    type: produce\n    topic: t\n    message: {size: 10}\n    stages: STAGES\n", "STAGES", bad.stages, 1)
		if _, err := testParse("plan.yaml", []byte(text), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("stages %s: err %v, want %q", bad.stages, err, bad.want)
		}
	}
}

// TestParseVUStages: regression: k6's ramping virtual users (stages of
// {duration, target}, the model k6 users know best) were refused. Stages
// of vus (or k6's target as a bare number) ramp the closed model from vus
// (default 1, k6's startVUs); target with a time unit is a rate.
func TestParseVUStages(t *testing.T) {
	t.Parallel()
	const head = "name: s\nworkloads:\n  - name: p\n    type: produce\n    topic: t\n    message: {size: 10}\n"
	tests := []struct {
		name, body string
		start      int
		vus        []load.VUStage
		rates      []load.Stage
		clients    int
	}{
		{"k6 target", "    stages: [{duration: 30s, target: 100}, {duration: 1m, target: 100}, {duration: 10s, target: 0}]\n", 1,
			[]load.VUStage{{Duration: 30 * time.Second, Target: 100}, {Duration: time.Minute, Target: 100}, {Duration: 10 * time.Second}}, nil, 1},
		{"vus, from 0", "    vus: 0\n    stages: [{duration: 10s, vus: 5000}]\n", 0,
			[]load.VUStage{{Duration: 10 * time.Second, Target: 5000}}, nil, 2},
		{"target with a unit is a rate", "    stages: [{duration: 10s, target: 100/s}]\n", 0,
			nil, []load.Stage{{Duration: 10 * time.Second, Rate: 100}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := testParse("plan.yaml", []byte(head+tt.body), nil)
			if err != nil {
				t.Fatal(err)
			}
			scs, _ := p.Scenarios()
			w := scs[0].Workloads[0]
			if !reflect.DeepEqual(w.VUStages, tt.vus) || !reflect.DeepEqual(w.Stages, tt.rates) || w.Clients != tt.clients {
				t.Fatalf("vu stages %+v, rate stages %+v, clients %d", w.VUStages, w.Stages, w.Clients)
			}
			if tt.vus != nil && w.VUs != tt.start {
				t.Errorf("starts from %d users, want %d", w.VUs, tt.start)
			}
			var sum time.Duration
			for _, s := range tt.vus {
				sum += s.Duration
			}
			for _, s := range tt.rates {
				sum += s.Duration
			}
			if d, ok := scs[0].Estimate(); !ok || d != sum || w.Duration != sum {
				t.Errorf("duration %v, estimate %v %v; want %v", w.Duration, d, ok, sum)
			}
		})
	}
	for _, bad := range []struct{ body, want string }{
		{"    stages: [{duration: 1m, vus: 10}, {duration: 1m, rate: 5k/s}]\n", "plan.yaml:7:39: workloads[0].stages[1]: ramps a rate where the stages before ramp virtual users"},
		{"    stages: [{duration: 1m, vus: 10, rate: 5k/s}]\n", "plan.yaml:7:14: workloads[0].stages[0]: needs a duration and one of rate"},
		{"    stages: [{duration: 1m, target: lots}]\n", `plan.yaml:7:37: workloads[0].stages[0].target: "lots" is not a count`},
		{"    rate: 5k/s\n    stages: [{duration: 1m, vus: 10}]\n", "plan.yaml:7:11: workloads[0].rate: stages set the rate and the duration; leave out rate"},
		{"    vus: 5\n    stages: [{duration: 1m, rate: 10/s}]\n", "plan.yaml:7:10: workloads[0].vus: stages set the rate and the duration; leave out vus"},
	} {
		if _, err := testParse("plan.yaml", []byte(head+bad.body), nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", bad.body, err, bad.want)
		}
	}
}

func TestParseKeysHeadersRatio(t *testing.T) {
	text := "name: k\nworkloads:\n  - name: p\n    type: produce\n    topic: t\n    records: 10\n    message:\n      size: 100\n      random_ratio: 0.5\n      key: {distribution: zipfian, count: 1000}\n      headers: {source: kbench, run: a}\n"
	p, err := testParse("plan.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	m := scs[0].Workloads[0].Message
	if m.RandomRatio != 0.5 || m.KeyDist != "zipfian" || m.KeyRange != 1000 || m.Headers["source"] != "kbench" {
		t.Fatalf("message %+v", m)
	}
}

// TestScenarioNamesUnique: values abbreviated alike still give distinct
// scenario names.
func TestScenarioNamesUnique(t *testing.T) {
	text := "name: u\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: \"${message}\"}\nmatrix:\n  message:\n    - {template: {a: {_type: uuid}}}\n    - {template: {a: {_type: bool}}}\n"
	p, err := testParse("plan.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := p.Scenarios()
	if len(scs) != 2 || scs[0].Name == scs[1].Name {
		t.Fatalf("names %q and %q", scs[0].Name, scs[1].Name)
	}
}

// TestParseUnits: a plan's values follow internal/units' one grammar, as
// flags and kbench size do. Regression: a rate of a number alone was an
// error in a plan and records per second in kbench size; it is per second
// everywhere.
func TestParseUnits(t *testing.T) {
	tests := []struct {
		field string
		ok    func(w Workload) bool
	}{
		{"rate: 5000, records: 10", func(w Workload) bool { return w.Rate == 5000 }},
		{"rate: 8640k/d, records: 10", func(w Workload) bool { return w.Rate == 100 }},
		{"rate: unlimited, records: 10", func(w Workload) bool { return w.Rate == 0 }},
		{"duration: 1d", func(w Workload) bool { return w.Duration == 24*time.Hour }},
		{"duration: 90s, warmup: 1m", func(w Workload) bool { return w.WarmupDuration == time.Minute }},
		{"records: 4.1M, warmup: 1.1k", func(w Workload) bool { return w.Records == 4_100_000 && w.WarmupRecords == 1100 }},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			p, err := testParse("plan.yaml", []byte("name: x\nworkloads:\n  - {name: p, type: produce, topic: t, message: {size: 1KiB}, "+tt.field+"}\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			scs, _ := p.Scenarios()
			if w := scs[0].Workloads[0]; !tt.ok(w) || w.Message.Size != 1024 {
				t.Errorf("%s: workload %+v", tt.field, w)
			}
		})
	}
}

// TestParseEveryGenerator: the plan takes every generator of payload's
// registry (the one the renderer uses), with what its required parameters
// need, and what it checks compiles.
func TestParseEveryGenerator(t *testing.T) {
	need := map[payload.ParamKind]string{payload.ValueParam: `"x"`, payload.ValuesParam: "[a, 2]"}
	for _, name := range payload.Generators {
		t.Run(name, func(t *testing.T) {
			gen := "_type: " + name
			_, params, _ := payload.NewGenerator(name)
			for _, p := range params {
				if p.Missing != "" {
					gen += ", " + p.Name + ": " + need[p.Kind]
				}
			}
			p, err := testParse("plan.yaml", []byte("name: x\nworkloads:\n  - {name: p, type: produce, topic: t, records: 5, message: {template: {v: {"+gen+"}}}}\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			scs, _ := p.Scenarios()
			src, err := payload.CompileTemplate(*scs[0].Workloads[0].Message.Template, 1)
			if err != nil {
				t.Fatal(err)
			}
			if v := src.Value(0); !strings.HasPrefix(string(v), `{"v":`) {
				t.Errorf("rendered %s", v)
			}
		})
	}
}

// TestMaxRateBounds: a rate search's floor is start/10 and its time bound
// an hour unless the plan gives them; a ceiling only when given.
func TestMaxRateBounds(t *testing.T) {
	for _, tt := range []struct {
		slo            string
		floor, ceiling float64
		maxTime        time.Duration
	}{
		{"{p99: 5ms, start: 2k/s}", 200, 0, time.Hour},
		{"{p99: 5ms, start: 2k/s, floor: 500/s, ceiling: 8k/s, max_time: 10m}", 500, 8000, 10 * time.Minute},
	} {
		p, err := testParse("plan.yaml", []byte("name: x\nworkloads:\n  - {name: p, type: produce, topic: t, duration: 5s, message: {size: 10}, rate: max, slo: "+tt.slo+"}\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		scs, _ := p.Scenarios()
		mr := scs[0].Workloads[0].MaxRate
		if mr.Floor != tt.floor || mr.Ceiling != tt.ceiling || mr.MaxTime != tt.maxTime {
			t.Errorf("%s: floor %v, ceiling %v, max_time %v; want %v, %v, %v", tt.slo, mr.Floor, mr.Ceiling, mr.MaxTime, tt.floor, tt.ceiling, tt.maxTime)
		}
	}
}
