package ombresult

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	t.Parallel()
	// Java's Double.toString of each value.
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0.0"},
		{1, "1.0"},
		{1.5, "1.5"},
		{-2, "-2.0"},
		{0.001, "0.001"},
		{0.0001, "1.0E-4"},
		{0.00012345, "1.2345E-4"},
		{1234.5678, "1234.5678"},
		{9999999, "9999999.0"},
		{1e7, "1.0E7"},
		{12345678.9, "1.23456789E7"},
		{1e21, "1.0E21"},
		{99.99, "99.99"},
		{100.0 / 3, "33.333333333333336"},
	} {
		if got := javaDouble(tc.v); got != tc.want {
			t.Errorf("javaDouble(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}

// TestJSONIsOMBs: the file has TestResult's fields in their order, in
// Jackson's pretty-printed form, and any JSON reader takes it.
func TestJSONIsOMBs(t *testing.T) {
	t.Parallel()
	r := &TestResult{
		Workload: `1 topic "a"`, Driver: "Kafka-throughput", MessageSize: 1024, Topics: 1, Partitions: 16,
		ProducersPerTopic: 1, ConsumersPerTopic: 1,
		PublishRate: []float64{1000, 1000.5}, PublishErrorRate: []float64{0, 0}, ConsumeRate: []float64{999.9, 1e7}, Backlog: []int64{3, 0},
		PublishDelay:                    Series{P50: []float64{12, 13}},
		AggregatedPublish:               Figures{Avg: 1.25, P50: 1, Max: 20.5},
		AggregatedPublishDelay:          Figures{P99: 42},
		AggregatedPublishQuantiles:      []Quantile{{1, 0.5}, {50, 1}, {100, 20.5}},
		AggregatedPublishDelayQuantiles: []Quantile{{100, 42}},
	}
	got := string(r.JSON())
	for _, want := range []string{
		"{\n  \"workload\" : \"1 topic \\\"a\\\"\",\n  \"driver\" : \"Kafka-throughput\",\n  \"messageSize\" : 1024,",
		`"publishRate" : [ 1000.0, 1000.5 ],`,
		`"consumeRate" : [ 999.9, 1.0E7 ],`,
		`"backlog" : [ 3, 0 ],`,
		`"publishLatencyAvg" : [ ],`,
		`"publishDelayLatency50pct" : [ 12, 13 ],`,
		`"aggregatedPublishLatencyAvg" : 1.25,`,
		`"aggregatedPublishDelayLatency99pct" : 42,`,
		"\"aggregatedPublishLatencyQuantiles\" : {\n    \"1.0\" : 0.5,\n    \"50.0\" : 1.0,\n    \"100.0\" : 20.5\n  },",
		"\"aggregatedPublishDelayLatencyQuantiles\" : {\n    \"100.0\" : 42\n  },",
		"\"aggregatedEndToEndLatencyQuantiles\" : { },",
		"\"aggregatedEndToEndLatencyMax\" : 0.0\n}\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(got), &fields); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	// Every field of OMB's TestResult, and no other.
	if len(fields) != len(ombFields) {
		t.Errorf("%d fields, OMB's TestResult has %d", len(fields), len(ombFields))
	}
	last := -1
	for _, f := range ombFields {
		if _, ok := fields[f]; !ok {
			t.Errorf("field %s missing", f)
		}
		i := strings.Index(got, `"`+f+`" :`)
		if i < last {
			t.Errorf("field %s out of TestResult's order", f)
		}
		last = i
	}
}

// ombFields are TestResult.java's public fields in their order.
var ombFields = strings.Fields(`workload driver messageSize topics partitions producersPerTopic consumersPerTopic
publishRate publishErrorRate consumeRate backlog
publishLatencyAvg publishLatency50pct publishLatency75pct publishLatency95pct publishLatency99pct publishLatency999pct publishLatency9999pct publishLatencyMax
publishDelayLatencyAvg publishDelayLatency50pct publishDelayLatency75pct publishDelayLatency95pct publishDelayLatency99pct publishDelayLatency999pct publishDelayLatency9999pct publishDelayLatencyMax
aggregatedPublishLatencyAvg aggregatedPublishLatency50pct aggregatedPublishLatency75pct aggregatedPublishLatency95pct aggregatedPublishLatency99pct aggregatedPublishLatency999pct aggregatedPublishLatency9999pct aggregatedPublishLatencyMax
aggregatedPublishDelayLatencyAvg aggregatedPublishDelayLatency50pct aggregatedPublishDelayLatency75pct aggregatedPublishDelayLatency95pct aggregatedPublishDelayLatency99pct aggregatedPublishDelayLatency999pct aggregatedPublishDelayLatency9999pct aggregatedPublishDelayLatencyMax
aggregatedPublishLatencyQuantiles aggregatedPublishDelayLatencyQuantiles
endToEndLatencyAvg endToEndLatency50pct endToEndLatency75pct endToEndLatency95pct endToEndLatency99pct endToEndLatency999pct endToEndLatency9999pct endToEndLatencyMax
aggregatedEndToEndLatencyQuantiles
aggregatedEndToEndLatencyAvg aggregatedEndToEndLatency50pct aggregatedEndToEndLatency75pct aggregatedEndToEndLatency95pct aggregatedEndToEndLatency99pct aggregatedEndToEndLatency999pct aggregatedEndToEndLatency9999pct aggregatedEndToEndLatencyMax`)
