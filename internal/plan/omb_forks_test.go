package plan

import (
	"context"
	"strings"
	"testing"
)

// TestOMBForkDrivers guards issue 33 item 9: driver files of OMB's forks
// were refused (reset: "OMB removed this field in 2022 ... remove the
// line"; the Redpanda fork's driver class; any field kbench did not
// know), where OMB and the forks run them (Jackson with
// FAIL_ON_UNKNOWN_PROPERTIES off). The Redpanda fork's own file, its
// bootstrap changed, runs with an upstream workload unchanged.
func TestOMBForkDrivers(t *testing.T) {
	t.Parallel()
	const upstream = "../../examples/omb/workloads/1-topic-100-partitions-1kb.yaml"
	tests := []struct {
		name      string
		workload  string // a file, or OMB workload text
		driver    string // a file, or driver text
		class     string // what the driverClass line says
		resetNote bool
		warning   string // a warning expected, "" for none
	}{
		{name: "Redpanda fork's redpanda-ack-all-linger-1ms.yaml", workload: upstream, driver: "testdata/driver-redpanda/redpanda-ack-all-linger-1ms.yaml", class: "the Redpanda fork's Kafka-protocol driver", resetNote: true},
		{name: "AutoMQ's reset: false", driver: ombDriverText + "reset: false\n", class: "OMB's Kafka driver"},
		{name: "unknown driver field: a warning with did-you-mean", driver: ombDriverText + "replicationFactr: 3\n", class: "OMB's Kafka driver", warning: `d.yaml:24:1: unknown field "replicationFactr"; did you mean "replicationFactor"?`},
		{name: "unknown workload field: a warning with did-you-mean", workload: ombWorkloadText(nil, "producerRates: 5\n"), driver: ombDriverText, class: "OMB's Kafka driver", warning: `w.yaml:14:1: unknown field "producerRates"; did you mean "producerRate"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var o *OMB
			var err error
			if strings.HasSuffix(tt.workload, ".yaml") {
				o, err = loadOMB(context.Background(), tt.workload, tt.driver, nil, seqNames(), builtinTypes()...)
			} else {
				w := tt.workload
				if w == "" {
					w = ombWorkloadText(nil, "")
				}
				wpath, dpath := ombFiles(t, w, tt.driver)
				o, err = loadOMB(context.Background(), wpath, dpath, nil, seqNames(), builtinTypes()...)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range o.Fields {
				if f.File == "driver" && f.Field == "driverClass" && !strings.HasPrefix(f.Becomes, tt.class) {
					t.Errorf("driverClass becomes %q, want %q", f.Becomes, tt.class)
				}
			}
			if got := hasNote(o, "reset: true deleted the benchmark's topics"); got != tt.resetNote {
				t.Errorf("reset note %v, want %v: %q", got, tt.resetNote, o.Notes)
			}
			joined := strings.Join(o.Plan.Warnings(), "\n")
			if tt.warning == "" && len(o.Warnings) > 0 || tt.warning != "" && (!strings.Contains(joined, tt.warning) || !strings.Contains(joined, "OMB ignores fields it does not know, and so does kbench")) {
				t.Errorf("warnings %q, want %q", o.Plan.Warnings(), tt.warning)
			}
		})
	}
	t.Run("Redpanda's properties reach the clients", func(t *testing.T) {
		t.Parallel()
		o, err := loadOMB(context.Background(), upstream, "testdata/driver-redpanda/redpanda-ack-all-linger-1ms.yaml", nil, seqNames(), builtinTypes()...)
		if err != nil {
			t.Fatal(err)
		}
		v := viewOf(t, o)
		if b := v.p.Cluster.Bootstrap; b != "broker-1.example:9092" {
			t.Errorf("bootstrap %q", b)
		}
		p := v.producers[0].Properties
		if p["acks"] != "all" || p["linger.ms"] != "1" || p["batch.size"] != "131072" {
			t.Errorf("producer properties %v", p)
		}
		if v.topics[0].Replication != 3 {
			t.Errorf("replication %d, want 3", v.topics[0].Replication)
		}
	})
}
