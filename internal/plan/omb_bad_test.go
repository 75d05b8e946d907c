package plan

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

// TestOMBBad: a workload or driver file kbench cannot run as written is
// refused, naming the file, line, column and field and what to do.
func TestOMBBad(t *testing.T) {
	t.Parallel()
	pulsar := "name: Pulsar\ndriverClass: io.openmessaging.benchmark.driver.pulsar.PulsarBenchmarkDriver\n\nclient:\n  serviceUrl: pulsar://localhost:6650\n"
	tests := []struct {
		name   string
		change map[string]string
		extra  string
		driver string
		sets   []string
		want   []string // each a regular expression
	}{
		{name: "wrong type: text for a number", change: map[string]string{"producerRate": "fast"}, want: []string{`w\.yaml:11:15: producerRate: "fast" is not a whole number`}},
		{name: "wrong type: a list", change: map[string]string{"topics": "[1]"}, want: []string{`w\.yaml:4:9: topics: is a list; write a whole number`}},
		{name: "wrong type: a fraction of a minute", change: map[string]string{"testDurationMinutes": "1.5"}, want: []string{`w\.yaml:13:22: testDurationMinutes: "1.5" is not a whole number`}},
		{name: "wrong type: boolean", change: map[string]string{"useRandomizedPayloads": "yes"}, want: []string{`useRandomizedPayloads: "yes" is not true or false`}},
		{name: "unknown key distributor", change: map[string]string{"keyDistributor": "KEY_ROUND_ROBN"}, want: []string{`keyDistributor: "KEY_ROUND_ROBN" is not one of NO_KEY, KEY_ROUND_ROBIN or RANDOM_NANO \(OMB would quietly take NO_KEY\); did you mean "KEY_ROUND_ROBIN"\?`}},
		{name: "runs forever", change: map[string]string{"testDurationMinutes": "0"}, want: []string{`testDurationMinutes: 0 runs until stopped in OMB; kbench needs an end`}},
		{name: "missing field", change: map[string]string{"topics": ""}, want: []string{`w\.yaml:3:1: topics: missing; OMB reads it as 0`}},
		{name: "payload of another size", change: map[string]string{"messageSize": "100"}, want: []string{`payloadFile: .*payload-1Kb\.data holds 1024 bytes and messageSize is 100`}},
		{name: "payload not found", change: map[string]string{"payloadFile": "payload/none.data"}, want: []string{`payloadFile: payload/none\.data not found`}},
		{name: "backlog with the rate search", change: map[string]string{"producerRate": "0", "consumerBacklogSizeGB": "1"}, want: []string{`consumerBacklogSizeGB: a backlog cannot be built while producerRate: 0 searches`}},
		{name: "backlog without consumers", change: map[string]string{"subscriptionsPerTopic": "0", "consumerBacklogSizeGB": "1"}, want: []string{`consumerBacklogSizeGB: a backlog needs consumers`}},
		{name: "part of the backlog", change: map[string]string{"backlogDrainRatio": "0.5"}, want: []string{`backlogDrainRatio: 0.5: .*only 1`}},
		{name: "too many topics", change: map[string]string{"topics": "2000"}, want: []string{`topics: 2000 is out of range: kbench runs each topic's producers and subscriptions as workloads of their own, at most 1000 topics`}},
		{name: "too many clients", change: map[string]string{"topics": "1000", "producersPerTopic": "20"}, want: []string{`topics: 1000 topics × \(20 producers \+ 1 subscriptions × 1 consumers\) are 21000 clients`}},
		{name: "rate search without consumers", change: map[string]string{"subscriptionsPerTopic": "0", "producerRate": "0"}, want: []string{`w\.yaml:11:15: producerRate: 0 \(OMB's balanced-rate search\) needs consumers`}},
		{name: "no pool size", change: map[string]string{"useRandomizedPayloads": "true"}, want: []string{`randomizedPayloadPoolSize: missing`}},
		{name: "every problem at once, in file order", change: map[string]string{"topics": "x", "producerRate": "-1"}, want: []string{`2 problems`, `w\.yaml:4:9: topics: "x"`, `w\.yaml:11:15: producerRate: -1 is out of range`}},
		{name: "driver of another system", driver: pulsar, want: []string{`d\.yaml:2:14: driverClass: io\.openmessaging\.benchmark\.driver\.pulsar\.PulsarBenchmarkDriver is OMB's driver for Apache Pulsar; kbench runs Kafka only`}},
		{name: "driver of no known system", driver: strings.Replace(ombDriverText, "kafka.KafkaBenchmarkDriver", "kafka.Mine", 1), want: []string{`driverClass: .*kafka\.Mine is not a Kafka-protocol driver kbench knows`}},
		{name: "Redpanda's transactional driver", driver: strings.Replace(ombDriverText, "kafka.KafkaBenchmarkDriver", "redpanda.tx.RedpandaBenchmarkDriver", 1), want: []string{`driverClass: .*redpanda\.tx\.RedpandaBenchmarkDriver is a driver of the Redpanda fork kbench does not translate`}},
		{name: "driver with a reset that is no boolean", driver: ombDriverText + "reset: yes please\n", want: []string{`d\.yaml:24:8: reset: "yes please" is not true or false`}},
		{name: "driver: no replication factor", driver: strings.Replace(ombDriverText, "replicationFactor: 3\n", "", 1), want: []string{`d\.yaml:1:1: replicationFactor: missing`}},
		{name: "driver: properties as a mapping", driver: strings.Replace(ombDriverText, "topicConfig: |\n  min.insync.replicas=2", "topicConfig:\n  min.insync.replicas: 2", 1), want: []string{`d\.yaml:8:3: topicConfig: is a mapping; OMB reads Java properties text here`}},
		{name: "driver: zone.id", driver: strings.Replace(ombDriverText, "  request.timeout.ms=1200000\n", "  request.timeout.ms=1200000\n  client.id=bench-{zone.id}\n", 1), want: []string{`commonConfig: client\.id "bench-\{zone\.id\}": OMB replaces \{zone\.id\}`}},
		{name: "--set of no field", sets: []string{"producerRat=5"}, want: []string{`--set producerRat=5: "producerRat" is neither an OMB workload field, driver\.FIELD nor a kbench plan field; did you mean "producerRate"\?`}},
		{name: "--set of no driver field", sets: []string{"driver.replicationFactr=1"}, want: []string{`--set driver\.replicationFactr=1: driver\.replicationFactr: the driver has no field "replicationFactr".*did you mean driver\.replicationFactor\?`}},
		{name: "--set of a bad value", sets: []string{"producerRate=abc"}, want: []string{`--set producerRate=abc: producerRate: "abc" is not a whole number`}},
		{name: "--set of a bad duration", sets: []string{"testDurationMinutes=30x"}, want: []string{`--set testDurationMinutes=30x: testDurationMinutes: "30x" is not a whole number`}},
		{name: "--set of a bad kbench value", sets: []string{"repeat=0"}, want: []string{`--set repeat=0: repeat: 0 is out of range`}},
		{name: "--set into an OMB value", sets: []string{"producerRate.x=1"}, want: []string{`producerRate is a single value`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			driver := tt.driver
			if driver == "" {
				driver = ombDriverText
			}
			_, err := loadTestOMB(t, tt.change, tt.extra, driver, tt.sets)
			if err == nil {
				t.Fatal("accepted")
			}
			if !userr.Is(err) {
				t.Errorf("not marked as the user's error (exit 2): %v", err)
			}
			for _, w := range tt.want {
				if !regexp.MustCompile(w).MatchString(err.Error()) {
					t.Errorf("error\n%v\ndoes not match %q", err, w)
				}
			}
		})
	}
}

// TestOMBFilesMixedUp: files given in each other's place, or a kbench plan
// given as an OMB workload, are refused with what to do.
func TestOMBFilesMixedUp(t *testing.T) {
	t.Parallel()
	wpath, dpath := ombFiles(t, ombWorkloadText(nil, ""), ombDriverText)
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(plan, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, workload, driver, want string }{
		{"swapped", dpath, wpath, "is an OMB driver file and"},
		{"two workloads", wpath, wpath, "--omb-driver " + wpath + " is an OMB workload file"},
		{"a kbench plan", plan, dpath, "is a kbench plan, not an OpenMessaging Benchmark workload: run it without --omb-driver"},
		{"no such file", wpath + ".x", dpath, "read the OMB workload file"},
	}
	for _, tt := range tests {
		_, err := loadOMB(context.Background(), tt.workload, tt.driver, nil, seqNames(), builtinTypes()...)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if !LooksLikeOMB(wpath) || LooksLikeOMB(plan) || LooksLikeOMB(dpath) {
		t.Error("LooksLikeOMB")
	}
}

// TestParseOMBForms: the kbench plan fields OMB's records need, in any
// plan.
func TestParseOMBForms(t *testing.T) {
	t.Parallel()
	head := "name: f\nworkloads:\n  - name: p\n    type: produce\n    topic: t\n    records: 10\n"
	tests := []struct {
		name, body string
		check      func(w Workload) bool
		bad        string
	}{
		{"delimiter none: the whole file", "    message: {payload_file: x.data, delimiter: none}\n", func(w Workload) bool { return w.Message.WholeFile && w.Message.Delimiter == "" }, ""},
		{"pool", "    message: {size: 1024, random_ratio: 0.5, pool: 1000}\n", func(w Workload) bool { return w.Message.Pool == 1000 && w.Message.RandomRatio == 0.5 }, ""},
		{"key format", "    message: {size: 10, key: {distribution: sequential, count: 10000, format: omb}}\n", func(w Workload) bool { return w.Message.KeyFormat == "omb" && w.Message.KeyRange == 10000 }, ""},
		{"send time header", "    message: {size: 10}\n    send_time_header: true\n", func(w Workload) bool { return w.SendTimeHeader }, ""},
		{"pool without size", "    message: {payload_file: x.data, pool: 10}\n", nil, "message.pool: applies to size only"},
		{"pool over 1 GiB", "    message: {size: 1MiB, pool: 2000}\n", nil, "more than 1 GiB"},
		{"key format unknown", "    message: {size: 10, key: {count: 10, format: hex}}\n", nil, `format: "hex" is not one of decimal or omb`},
		{"key format with a template", "    message: {size: 10, key: {template: {_type: uuid}, format: omb}}\n", nil, "not both"},
		{"send time header on an end-to-end workload", "    message: {size: 10}\n    send_time_header: true\n", nil, "applies to produce workloads"},
	}
	for _, tt := range tests {
		text := head + tt.body
		if tt.name == "send time header on an end-to-end workload" {
			text = strings.Replace(text, "type: produce", "type: end-to-end", 1)
		}
		p, err := testParse("plan.yaml", []byte(text), nil)
		if tt.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tt.bad) {
				t.Errorf("%s: %v, want %q", tt.name, err, tt.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		scs, _ := p.Scenarios()
		if w := scs[0].Workloads[0]; !tt.check(w) {
			t.Errorf("%s: workload %+v", tt.name, w)
		}
	}
}
