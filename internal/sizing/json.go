package sizing

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
)

// JSONSchema names the --json document and its version. Field names carry
// their units and do not change meaning within a version; fields may be added.
const JSONSchema = "kbench.size/v1"

type jsonDoc struct {
	Schema                          string         `json:"schema"`
	Input                           jsonInput      `json:"input"`
	IngestBytesPerSec               float64        `json:"ingest_bytes_per_sec"`
	ReplicationBytesPerSec          float64        `json:"replication_bytes_per_sec"`
	StorageOneCopyBytes             float64        `json:"storage_one_copy_bytes"`
	StorageAllReplicasBytes         float64        `json:"storage_all_replicas_bytes"`
	StoragePerBrokerBytes           float64        `json:"storage_per_broker_bytes"`
	StorageAllReplicasHeadroomBytes float64        `json:"storage_all_replicas_with_headroom_bytes"`
	StoragePerBrokerHeadroomBytes   float64        `json:"storage_per_broker_with_headroom_bytes"`
	NetworkInPerBrokerBytesPerSec   float64        `json:"network_in_per_broker_bytes_per_sec"`
	NetworkOutPerBrokerBytesPerSec  float64        `json:"network_out_per_broker_bytes_per_sec"`
	Partitions                      jsonPartitions `json:"partitions"`
	BrokerCPU                       *jsonCores     `json:"broker_cpu,omitempty"`
}

// jsonCores is the broker CPU the rate needs at the records/s per broker
// core a kbench run measured (--from).
type jsonCores struct {
	RecordsPerSecPerCore float64  `json:"records_per_sec_per_core"`
	From                 string   `json:"from"`
	Scenario             string   `json:"scenario"`
	Repeats              int      `json:"repeats"`
	ClusterCores         float64  `json:"cluster_cores"`
	PerBrokerCores       float64  `json:"per_broker_cores"`
	Caveats              []string `json:"caveats,omitempty"`
}

type jsonInput struct {
	Rate             string  `json:"rate"` // as given
	RecordsPerSec    float64 `json:"records_per_sec"`
	RecordSize       string  `json:"record_size"` // as given
	RecordBytes      float64 `json:"record_bytes"`
	Retention        string  `json:"retention"` // as given
	RetentionSeconds float64 `json:"retention_seconds"`
	Replication      int     `json:"replication"`
	Brokers          int     `json:"brokers"`
	ConsumerGroups   int     `json:"consumer_groups"`
	HeadroomFraction float64 `json:"headroom_fraction"`
}

// jsonPartitions uses null for every figure that needs a measurement kbench
// does not have.
type jsonPartitions struct {
	ProducerRecordsPerSecPerPartition *float64     `json:"producer_records_per_sec_per_partition"`
	ProducerFrom                      string       `json:"producer_from,omitempty"`
	ConsumerRecordsPerSecPerPartition *float64     `json:"consumer_records_per_sec_per_partition"`
	ConsumerFrom                      string       `json:"consumer_from,omitempty"`
	ForProducers                      *int         `json:"for_producers"`
	ForConsumers                      *int         `json:"for_consumers"`
	Needed                            *int         `json:"needed"`
	Recommended                       *int         `json:"recommended"`
	ReplicasPerBroker                 *float64     `json:"replicas_per_broker"`
	RuleOfThumbMaxPerBroker           int          `json:"rule_of_thumb_max_per_broker"`
	RuleOfThumbMaxForTopic            int          `json:"rule_of_thumb_max_for_topic"`
	Results                           []jsonSource `json:"results"`
}

type jsonSource struct {
	Path                      string  `json:"path"`
	Kind                      string  `json:"kind"`
	Partitions                int     `json:"partitions"`
	RecordsPerSec             float64 `json:"records_per_sec"`
	RecordsPerSecPerPartition float64 `json:"records_per_sec_per_partition"`
	SteadyState               bool    `json:"steady_state"`
	RecordBytes               float64 `json:"record_bytes"`
	TargetRecordsPerSec       float64 `json:"target_records_per_sec"`
	Used                      bool    `json:"used"`
	Skipped                   string  `json:"skipped,omitempty"`
}

// WriteJSON prints e as an indented JSON document (JSONSchema). Sizes are
// in bytes and rates per second, never in KB or MB, so no base is implied.
func WriteJSON(w io.Writer, e *Estimate) error {
	in, pt := e.Input, e.Partitions
	d := jsonDoc{
		Schema: JSONSchema,
		Input: jsonInput{
			Rate: in.Rate.Text, RecordsPerSec: in.Rate.PerSec,
			RecordSize: in.RecordSize.Text, RecordBytes: in.RecordSize.Bytes,
			Retention: in.Retention.Text, RetentionSeconds: in.Retention.Seconds,
			Replication: in.Replication, Brokers: in.Brokers, ConsumerGroups: in.Consumers,
			HeadroomFraction: in.Headroom.Fraction,
		},
		IngestBytesPerSec:               e.IngestBytesPerSec,
		ReplicationBytesPerSec:          e.ReplicationBytesPerSec,
		StorageOneCopyBytes:             e.StorageBytes,
		StorageAllReplicasBytes:         e.ReplicatedBytes,
		StoragePerBrokerBytes:           e.PerBrokerBytes,
		StorageAllReplicasHeadroomBytes: e.ReplicatedHeadroomBytes,
		StoragePerBrokerHeadroomBytes:   e.PerBrokerHeadroomBytes,
		NetworkInPerBrokerBytesPerSec:   e.InPerBrokerBytesPerSec,
		NetworkOutPerBrokerBytesPerSec:  e.OutPerBrokerBytesPerSec,
		Partitions: jsonPartitions{
			RuleOfThumbMaxPerBroker: pt.CeilingPerBroker,
			RuleOfThumbMaxForTopic:  pt.MaxForTopic,
			Results:                 []jsonSource{},
		},
	}
	jp := &d.Partitions
	if r := in.Measured.Producer; r != nil {
		jp.ProducerRecordsPerSecPerPartition, jp.ProducerFrom = &r.RecordsPerSec, r.From
		jp.ForProducers = &pt.ForProducers
	}
	if r := in.Measured.Consumer; r != nil {
		jp.ConsumerRecordsPerSecPerPartition, jp.ConsumerFrom = &r.RecordsPerSec, r.From
		jp.ForConsumers = &pt.ForConsumers
	}
	if pt.Needed > 0 {
		jp.Needed, jp.Recommended, jp.ReplicasPerBroker = &pt.Needed, &pt.Recommended, &pt.ReplicasPerBroker
	}
	for _, s := range in.Measured.Sources {
		jp.Results = append(jp.Results, jsonSource{
			Path: filepath.ToSlash(s.Path), Kind: s.Kind, Partitions: s.Partitions,
			RecordsPerSec: s.RecordsPerSec, RecordsPerSecPerPartition: s.PerPartition(),
			SteadyState: s.SteadyState, RecordBytes: s.RecordBytes, TargetRecordsPerSec: s.TargetRate,
			Used: s.Skipped == "", Skipped: s.Skipped,
		})
	}
	if c := e.Cores; c != nil {
		d.BrokerCPU = &jsonCores{RecordsPerSecPerCore: in.Cores.RecordsPerSec, From: filepath.ToSlash(in.Cores.Path), Scenario: in.Cores.Scenario,
			Repeats: in.Cores.Repeats, ClusterCores: c.Cluster, PerBrokerCores: c.PerBroker, Caveats: coreCaveats(in)}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("write size document: %w", err)
	}
	return nil
}
