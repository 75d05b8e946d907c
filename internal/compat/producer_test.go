package compat

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/userr"
)

// TestTotalLineSeed000 rebuilds a summary line the Java tool printed in
// seed 000 from the numbers behind it (25,629 ms, 5M records of 250 B).
func TestTotalLineSeed000(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	TotalLine(&b, 5000000, false, 25629*time.Millisecond, 5000000*250, 203.55, 3076, Percentiles{19, 216, 548, 663})
	want := "5000000 records sent, 195091.497913 records/sec (46.51 MB/sec), 203.55 ms avg latency, 3076.00 ms max latency, 19 ms 50th, 216 ms 95th, 548 ms 99th, 663 ms 99.9th.\n"
	if b.String() != want {
		t.Fatalf("got  %q\nwant %q", b.String(), want)
	}
	b.Reset()
	TotalLine(&b, 40000, true, 2*time.Second, 4000000, 1.5, 12.25, Percentiles{1, 3, 5, 9})
	if want := "40000 steady state records sent, 20000.000000 records/sec (1.91 MB/sec), 1.50 ms avg latency, 12.25 ms max latency, 1 ms 50th, 3 ms 95th, 5 ms 99th, 9 ms 99.9th.\n"; b.String() != want {
		t.Fatalf("steady state: got %q", b.String())
	}
}

func TestWindowLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	WindowLine(&b, 630004, 5011*time.Millisecond, 630004*250, 166.04, 1506)
	want := "630004 records sent, 125724.2 records/sec (29.97 MB/sec), 166.0 ms avg latency, 1506.0 ms max latency.\n"
	if b.String() != want {
		t.Fatalf("got  %q\nwant %q", b.String(), want)
	}
}

func TestParseProducerArgs(t *testing.T) {
	t.Parallel()
	seed := []string{"--topic", "performancetest", "--num-records", "5000000", "--record-size", "250", "--throughput", "1000000",
		"--producer-props", "acks=1", "buffer.memory=67108864", "compression.type=snappy", "batch.size=8196", "bootstrap.servers=b:1025"}
	p, err := ParseProducerArgs(seed)
	if err != nil {
		t.Fatal(err)
	}
	if p.Topic != "performancetest" || p.NumRecords != 5000000 || p.RecordSize != 250 || p.Throughput != 1e6 ||
		len(p.PropPairs) != 5 || p.PropPairs[4].Item != "bootstrap.servers=b:1025" || p.PropPairs[0].Option != "--producer-props" ||
		p.PayloadDelimiter != "\n" || p.ReportingInterval != 5*time.Second || p.Producers != 1 {
		t.Fatalf("parsed %+v", p)
	}
	if w := p.DeprecationWarnings(); len(w) != 1 || w[0] != "Option --producer-props has been deprecated and will be removed in a future version. Use --command-property instead." {
		t.Fatalf("warnings %q", w)
	}
	p, err = ParseProducerArgs([]string{"--topic", "t", "--duration", "30s", "--throughput", "-1", "--payload-file", "f",
		"--payload-delimiter", `\n`, "--command-property", "acks=all", "--command-config", "c.properties"})
	if err != nil {
		t.Fatal(err)
	}
	if p.NumRecords != 0 || p.Duration != 30*time.Second || p.PayloadDelimiter != "\n" || len(p.PropFiles) != 1 || len(p.DeprecationWarnings()) != 0 {
		t.Fatalf("parsed %+v", p)
	}
}

func TestParseProducerArgsErrors(t *testing.T) {
	t.Parallel()
	base := []string{"--topic", "t", "--num-records", "10", "--throughput", "-1", "--record-size", "10"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no topic", []string{"--num-records", "1", "--throughput", "1", "--record-size", "1"}, "argument --topic is required"},
		{"no count", []string{"--topic", "t", "--throughput", "1", "--record-size", "1"}, "argument --num-records is required"},
		{"zero count", []string{"--topic", "t", "--num-records", "0", "--throughput", "1", "--record-size", "1"}, "--num-records should be greater than zero"},
		{"no throughput", []string{"--topic", "t", "--num-records", "1", "--record-size", "1"}, "argument --throughput is required"},
		{"bad number", append(base, "--warmup-records", "ten"), `option --warmup-records: "ten" is not a whole number`},
		{"warmup too big", append(base, "--warmup-records", "10"), "strictly fewer than the number of records"},
		{"bad duration", append(base, "--duration", "soon"), `--duration: "soon" is not a positive duration`},
		{"bad tx duration", append(base, "--transaction-duration-ms", "0"), "--transaction-duration-ms should be greater than zero"},
		{"local and bootstrap", append(base, "--local", "--bootstrap-server", "b:1"), "--local starts its own cluster"},
		{"local brokers alone", append(base, "--local-brokers", "3"), "--local-brokers needs --local"},
		{"several problems", []string{"--topic", "t"}, "3 problems with the command line"},
		// Regression: int32(--partitions) and int16(--replication-factor)
		// truncated silently: 4294967297 partitions became 1.
		{"partitions overflow", append(base, "--partitions", "4294967297"), "option --partitions: 4294967297 is too large; Kafka allows at most 2147483647"},
		{"replication overflow", append(base, "--replication-factor", "65537"), "option --replication-factor: 65537 is too large; Kafka allows at most 32767"},
		// Regression: --throughput 0 ran unlimited; Java documents only -1 for that.
		{"throughput 0", []string{"--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "0"}, "--throughput 0: give a rate above 0 records/sec, or -1 for no limit"},
		{"throughput -2", []string{"--topic", "t", "--num-records", "1", "--record-size", "1", "--throughput", "-2"}, "--throughput -2: give a rate above 0"},
		// Regression: illegal topic names were accepted.
		{"topic with space", []string{"--topic", "a b", "--num-records", "1", "--record-size", "1", "--throughput", "1"}, `--topic: topic name "a b" contains ' '`},
		{"topic dot", []string{"--topic", ".", "--num-records", "1", "--record-size", "1", "--throughput", "1"}, `topic name "." is not allowed`},
		// Regression: a negative duration was taken for a missing value ("needs a value").
		{"negative duration", append(base, "--duration", "-5s"), `option --duration: "-5s" is not a positive duration`},
	}
	for _, tt := range tests {
		_, err := ParseProducerArgs(tt.args)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want a usage error containing %q", tt.name, err, tt.want)
		}
	}
}
