package compat

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/measure"
)

// Rows of the --print-metrics tables of the first two producer studies
// (kafka-producer-perf-test 2.0.0-cp1), byte for byte. Each keeps
// the seed's longest key, so the padding is the seed's.
const (
	seedTable000 = "\n" + `Metric Name                                                                               Value
app-info:commit-id:{client-id=producer-1}                                               : 4b1dd33f255ddd2f
app-info:version:{client-id=producer-1}                                                 : 2.0.0-cp1
kafka-metrics-count:count:{client-id=producer-1}                                        : 142.000
producer-metrics:batch-size-avg:{client-id=producer-1}                                  : 844.688
producer-metrics:batch-size-max:{client-id=producer-1}                                  : 8107.000
producer-metrics:batch-split-rate:{client-id=producer-1}                                : 0.000
producer-metrics:connection-close-total:{client-id=producer-1}                          : 0.000
producer-metrics:record-size-max:{client-id=producer-1}                                 : 336.000
producer-metrics:records-per-request-avg:{client-id=producer-1}                         : 57.659
producer-metrics:request-latency-avg:{client-id=producer-1}                             : 4.100
producer-metrics:request-latency-max:{client-id=producer-1}                             : 175.000
producer-metrics:request-rate:{client-id=producer-1}                                    : 1536.567
producer-metrics:request-size-avg:{client-id=producer-1}                                : 1654.638
producer-metrics:request-size-max:{client-id=producer-1}                                : 16061.000
producer-node-metrics:incoming-byte-rate:{client-id=producer-1, node-id=node-1}         : 53318.851
producer-node-metrics:incoming-byte-rate:{client-id=producer-1, node-id=node-2}         : 12157.785
producer-node-metrics:incoming-byte-total:{client-id=producer-1, node-id=node--3}       : 248.000
producer-node-metrics:request-latency-avg:{client-id=producer-1, node-id=node--3}       : 0.000
producer-node-metrics:request-latency-avg:{client-id=producer-1, node-id=node-0}        : 2.597
producer-node-metrics:request-latency-avg:{client-id=producer-1, node-id=node-1}        : 3.509
producer-node-metrics:request-latency-avg:{client-id=producer-1, node-id=node-2}        : 11.877
producer-node-metrics:request-latency-max:{client-id=producer-1, node-id=node--1}       : -Infinity
producer-node-metrics:request-latency-max:{client-id=producer-1, node-id=node--2}       : -Infinity
producer-topic-metrics:compression-rate:{client-id=producer-1, topic=performancetest}   : 0.183
producer-topic-metrics:record-error-rate:{client-id=producer-1, topic=performancetest}  : 0.000
producer-topic-metrics:record-error-total:{client-id=producer-1, topic=performancetest} : 0.000
producer-topic-metrics:record-retry-rate:{client-id=producer-1, topic=performancetest}  : 0.000
producer-topic-metrics:record-retry-total:{client-id=producer-1, topic=performancetest} : 0.000
producer-topic-metrics:record-send-rate:{client-id=producer-1, topic=performancetest}   : 88712.253
producer-topic-metrics:record-send-total:{client-id=producer-1, topic=performancetest}  : 5000000.000
`
	seedTable001 = "\n" + `Metric Name                                                                               Value
app-info:commit-id:{client-id=producer-1}                                               : 4b1dd33f255ddd2f
app-info:version:{client-id=producer-1}                                                 : 2.0.0-cp1
kafka-metrics-count:count:{client-id=producer-1}                                        : 142.000
producer-metrics:batch-size-avg:{client-id=producer-1}                                  : 14069.442
producer-metrics:batch-size-max:{client-id=producer-1}                                  : 16220.000
producer-metrics:batch-split-rate:{client-id=producer-1}                                : 0.000
producer-metrics:compression-rate-avg:{client-id=producer-1}                            : 1.000
producer-metrics:connection-close-rate:{client-id=producer-1}                           : 0.000
producer-metrics:network-io-rate:{client-id=producer-1}                                 : 3360.095
producer-metrics:network-io-total:{client-id=producer-1}                                : 2040409990.000
producer-metrics:outgoing-byte-rate:{client-id=producer-1}                              : 37733844.265
producer-metrics:request-latency-max:{client-id=producer-1}                             : 845.000
producer-metrics:request-rate:{client-id=producer-1}                                    : 1680.079
producer-node-metrics:incoming-byte-rate:{client-id=producer-1, node-id=node--1}        : 4.604
producer-node-metrics:incoming-byte-rate:{client-id=producer-1, node-id=node--2}        : 4.603
producer-node-metrics:incoming-byte-rate:{client-id=producer-1, node-id=node--3}        : 11.359
producer-node-metrics:request-latency-max:{client-id=producer-1, node-id=node-1}        : 845.000
producer-node-metrics:request-latency-max:{client-id=producer-1, node-id=node-2}        : 89.000
producer-node-metrics:request-rate:{client-id=producer-1, node-id=node--1}              : 0.037
producer-node-metrics:request-rate:{client-id=producer-1, node-id=node--2}              : 0.037
producer-node-metrics:request-rate:{client-id=producer-1, node-id=node--3}              : 0.056
producer-topic-metrics:byte-rate:{client-id=producer-1, topic=performancetest}          : 37655132.485
producer-topic-metrics:byte-total:{client-id=producer-1, topic=performancetest}         : 2026787506.000
producer-topic-metrics:compression-rate:{client-id=producer-1, topic=performancetest}   : 1.000
producer-topic-metrics:record-error-rate:{client-id=producer-1, topic=performancetest}  : 0.000
producer-topic-metrics:record-error-total:{client-id=producer-1, topic=performancetest} : 0.000
producer-topic-metrics:record-retry-rate:{client-id=producer-1, topic=performancetest}  : 0.000
producer-topic-metrics:record-retry-total:{client-id=producer-1, topic=performancetest} : 0.000
producer-topic-metrics:record-send-rate:{client-id=producer-1, topic=performancetest}   : 37157.455
producer-topic-metrics:record-send-total:{client-id=producer-1, topic=performancetest}  : 2000000.000
`
)

func TestPrintMetricsSeeds(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"000": seedTable000, "001": seedTable001} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ms := parseTable(t, want)
			slices.Reverse(ms) // PrintMetrics must sort, not keep the order given
			var got bytes.Buffer
			PrintMetrics(&got, ms)
			if got.String() != want {
				t.Errorf("PrintMetrics:\n%s\nwant:\n%s", got.String(), want)
			}
		})
	}
}

// parseTable turns a printed table back into metrics: values Java printed
// with %.3f become float64, the rest strings.
func parseTable(t *testing.T, table string) []measure.Metric {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")[2:] // blank line, header
	var ms []measure.Metric
	for _, line := range lines {
		key, value, ok := strings.Cut(line, " : ")
		if !ok {
			t.Fatalf("row %q has no \" : \"", line)
		}
		key = strings.TrimRight(key, " ")
		group, rest, _ := strings.Cut(key, ":")
		name, tags, _ := strings.Cut(rest, ":")
		m := measure.Metric{Group: group, Name: name, Value: value}
		if f, err := strconv.ParseFloat(value, 64); err == nil && (strings.HasSuffix(value, "Infinity") || value[len(value)-4] == '.') {
			m.Value = f
		}
		for kv := range strings.SplitSeq(strings.Trim(tags, "{}"), ", ") {
			k, v, _ := strings.Cut(kv, "=")
			m.Tags = append(m.Tags, measure.Tag{Key: k, Value: v})
		}
		if m.Key() != key {
			t.Fatalf("Key() = %q, want %q", m.Key(), key)
		}
		ms = append(ms, m)
	}
	return ms
}

func TestPrintMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []measure.Metric
		want string
	}{
		{name: "none", in: nil, want: ""},
		{
			// Keys shorter than the header: %-Ns never truncates.
			name: "short keys",
			in:   []measure.Metric{{Group: "g", Name: "n", Value: 1.0}},
			want: "\nMetric Name   Value\ng:n:{} : 1.000\n",
		},
		{
			// Java's %s prints a Long in decimal; NaN is Java's text.
			name: "value kinds",
			in: []measure.Metric{
				{Group: "app-info", Name: "start-time-ms", Tags: []measure.Tag{{Key: "client-id", Value: "c"}}, Value: int64(1700000000123)},
				{Group: "app-info", Name: "version", Tags: []measure.Tag{{Key: "client-id", Value: "c"}}, Value: "1.0"},
				{Group: "m", Name: "avg", Tags: []measure.Tag{{Key: "client-id", Value: "c"}}, Value: 0.0005},
				{Group: "m", Name: "max", Tags: []measure.Tag{{Key: "client-id", Value: "c"}}, Value: nanValue()},
			},
			want: "\n" +
				"Metric Name                            Value\n" +
				"app-info:start-time-ms:{client-id=c} : 1700000000123\n" +
				"app-info:version:{client-id=c}       : 1.0\n" +
				"m:avg:{client-id=c}                  : 0.001\n" +
				"m:max:{client-id=c}                  : NaN\n",
		},
		{
			// TreeMap.put keeps the last value of a repeated key.
			name: "duplicate key",
			in: []measure.Metric{
				{Group: "g", Name: "n", Tags: []measure.Tag{{Key: "client-id", Value: "c"}}, Value: 1.0},
				{Group: "g", Name: "n", Tags: []measure.Tag{{Key: "client-id", Value: "c"}}, Value: 2.0},
			},
			want: "\nMetric Name         Value\ng:n:{client-id=c} : 2.000\n",
		},
		{
			// Java pads and sorts by UTF-16 code units: U+1F600 is two
			// units (D83D DE00), so it needs no padding to 7 and sorts
			// before U+FFFD, unlike in Go's rune counts and byte order.
			name: "utf16",
			in: []measure.Metric{
				{Group: "g", Name: "\uFFFD", Value: "a"},
				{Group: "g", Name: "\U0001F600", Value: "b"},
			},
			want: "\nMetric Name   Value\n" +
				"g:\U0001F600:{} : b\n" +
				"g:\uFFFD:{}  : a\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got bytes.Buffer
			PrintMetrics(&got, tt.in)
			if got.String() != tt.want {
				t.Errorf("PrintMetrics:\n%q\nwant:\n%q", got.String(), tt.want)
			}
		})
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}
