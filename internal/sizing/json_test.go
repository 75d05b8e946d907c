package sizing

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	measured := seedInput(t)
	measured.Measured = Measured{
		Consumer: &PartitionRate{RecordsPerSec: 2500, From: "1 consumer-perf-test result"},
		Sources:  []Source{{Path: "c.json", Kind: "consumer-perf-test", Partitions: 2, RecordsPerSec: 5000}},
	}
	tests := []struct {
		name  string
		input Input
		want  map[string]any // top-level or "partitions.x" keys → value (numbers as float64, nil for null)
	}{
		{"seed", seedInput(t), map[string]any{
			"schema":                                            JSONSchema,
			"ingest_bytes_per_sec":                              25e6,
			"replication_bytes_per_sec":                         50e6,
			"storage_one_copy_bytes":                            15.12e12,
			"storage_all_replicas_bytes":                        45.36e12,
			"storage_per_broker_bytes":                          11.34e12,
			"storage_per_broker_with_headroom_bytes":            11.34e12,
			"network_in_per_broker_bytes_per_sec":               18.75e6,
			"network_out_per_broker_bytes_per_sec":              18.75e6,
			"partitions.recommended":                            nil,
			"partitions.consumer_records_per_sec_per_partition": nil,
			"partitions.rule_of_thumb_max_per_broker":           1200.0,
			"partitions.rule_of_thumb_max_for_topic":            1600.0,
		}},
		{"measured consumer", measured, map[string]any{
			"partitions.consumer_records_per_sec_per_partition": 2500.0,
			"partitions.consumer_from":                          "1 consumer-perf-test result",
			"partitions.for_consumers":                          4.0,
			"partitions.for_producers":                          nil,
			"partitions.needed":                                 4.0,
			"partitions.recommended":                            4.0,
			"partitions.replicas_per_broker":                    3.0,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := Compute(tt.input)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteJSON(&buf, e); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, buf.Bytes())
			}
			parts := doc["partitions"].(map[string]any)
			for k, want := range tt.want {
				m, key := doc, k
				if len(k) > len("partitions.") && k[:len("partitions.")] == "partitions." {
					m, key = parts, k[len("partitions."):]
				}
				got, ok := m[key]
				if !ok {
					t.Errorf("%s: missing", k)
					continue
				}
				if got != want {
					t.Errorf("%s = %v, want %v", k, got, want)
				}
			}
		})
	}
}
