package study

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
	"github.com/kbench/kbench/internal/testkafka"
)

// The study's template, as the three schemas describe it.
const (
	itAvro = `{"type":"record","name":"User","namespace":"kbench.it","fields":[
 {"name":"id","type":"string"},{"name":"name","type":"string"},{"name":"description","type":"string"},
 {"name":"value","type":"int"},{"name":"timestamp","type":"long"}]}`
	itJSONSchema = `{"title":"kbench.it.User","type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"},
 "description":{"type":"string"},"value":{"type":"integer"},"timestamp":{"type":"integer"}},
 "required":["id","name","description","value","timestamp"]}`
	itProto = `syntax = "proto3";
package kbench.it;
message User { string id = 1; string name = 2; string description = 3; int32 value = 4; int64 timestamp = 5; }`
	itPlan = `name: it-%[1]s
cluster: {bootstrap: "%[2]s"}
schema_registry: {schema.registry.url: "%[3]s"}
topics: [{name: %[4]s, partitions: 2, replication: 1}]
workloads:
  - name: users
    type: produce
    topic: %[4]s
    records: %[5]d
    verify: true
    message:
      format: %[1]s
      schema_file: %[6]s
      template:
        id: { "_type": "uuid" }
        name: { "_type": "constant", "_value": "name" }
        description: { "_type": "random_string", "_length": 40 }
        value: { "_type": "random_int", "_min": 0, "_max": 100 }
        timestamp: { "_type": "now", "_format": "epoch_millis" }
  - name: readers
    type: consume
    topic: %[4]s
    records: %[5]d
    timeout: 30s
`
)

// TestConformanceSchemaRegistry: a workload of each format
// registers its subject at a real registry (Apicurio, beside the test
// broker) and produces N records, and an independent decoder (franz-go's
// sr.Serde over hamba/avro, encoding/json, protocompile + dynamicpb, with
// the schema fetched from the registry by the id in each record) decodes
// all N from the topic.
func TestConformanceSchemaRegistry(t *testing.T) {
	bootstrap := testkafka.Bootstrap(t)
	url := testkafka.RegistryURL(t)
	const n = 500
	for _, tc := range []struct{ format, file, text string }{
		{"avro", "user.avsc", itAvro}, {"json_schema", "user.json", itJSONSchema}, {"protobuf", "user.proto", itProto},
	} {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			topic := fmt.Sprintf("it-schemas-%s-%d", strings.ReplaceAll(tc.format, "_", "-"), time.Now().UnixNano())
			text := fmt.Sprintf(itPlan, tc.format, bootstrap, url, topic, n, tc.file)
			p, err := plan.Parse(filepath.Join(dir, "plan.yaml"), []byte(text), nil, PlanTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			scs, _ := p.Scenarios()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
			defer cancel()
			doc, err := Run(ctx, p, scs, Options{})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			reg := doc.Plan.SchemaRegistry
			if reg == nil || len(reg.Subjects) != 1 || reg.Subjects[0].Subject != topic+"-value" || reg.ColdRequests == 0 {
				t.Fatalf("result's schema_registry = %+v, want subject %s-value resolved before sending", reg, topic)
			}
			checkReadersDecoded(t, doc, n)
			decodeAll(ctx, t, bootstrap, url, topic, tc.format, reg.Subjects[0].ID, n)
		})
	}
}

// decodeAll reads n records of topic and decodes each with sr.Serde, its
// decoder made from the schema the registry gives for id.
func decodeAll(ctx context.Context, t *testing.T, bootstrap, url, topic, format string, id, n int) {
	t.Helper()
	rcl, err := sr.NewClient(sr.URLs(url))
	if err != nil {
		t.Fatal(err)
	}
	got, err := rcl.SchemaByID(ctx, id)
	if err != nil {
		t.Fatalf("fetch schema %d: %v", id, err)
	}
	var serde sr.Serde
	check := func(m map[string]any) error {
		if len(fmt.Sprint(m["id"])) != 36 || m["name"] != "name" || len(fmt.Sprint(m["description"])) != 40 {
			return fmt.Errorf("decoded %v", m)
		}
		return nil
	}
	switch format {
	case "avro":
		s, err := avro.Parse(got.Schema)
		if err != nil {
			t.Fatal(err)
		}
		serde.Register(id, map[string]any{}, sr.DecodeFn(func(b []byte, v any) error {
			var m map[string]any
			if err := avro.Unmarshal(s, b, &m); err != nil {
				return err
			}
			return check(m)
		}))
	case "json_schema":
		serde.Register(id, map[string]any{}, sr.DecodeFn(func(b []byte, v any) error {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			return check(m)
		}))
	case "protobuf":
		c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"u.proto": got.Schema})}}
		files, err := c.Compile(ctx, "u.proto")
		if err != nil {
			t.Fatal(err)
		}
		md := files[0].Messages().Get(0)
		serde.Register(id, map[string]any{}, sr.Index(0), sr.DecodeFn(func(b []byte, v any) error {
			m := dynamicpb.NewMessage(md)
			if err := proto.Unmarshal(b, m); err != nil {
				return err
			}
			out := map[string]any{}
			for _, name := range []string{"id", "name", "description"} {
				out[name] = m.Get(md.Fields().ByName(protoreflectName(name))).String()
			}
			return check(out)
		}))
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	decoded := 0
	for decoded < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("decoded %d of %d records: %v", decoded, n, err)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Fatalf("fetch: %v", err) })
		for _, r := range fs.Records() {
			if err := serde.Decode(r.Value, &map[string]any{}); err != nil {
				t.Fatalf("record %d (offset %d): %v", decoded, r.Offset, err)
			}
			decoded++
		}
	}
	if decoded != n {
		t.Fatalf("decoded %d records, want %d", decoded, n)
	}
}

func protoreflectName(s string) protoreflect.Name { return protoreflect.Name(s) }

// checkReadersDecoded: the plan's own consumer decoded every record with
// the registry's schema, and verification found every record.
func checkReadersDecoded(t *testing.T, doc *result.Document, n int64) {
	t.Helper()
	rep := doc.Plan.Scenarios[0].Repeats[0]
	if rep.Error != "" {
		t.Fatalf("repeat failed: %s", rep.Error)
	}
	var found bool
	for _, w := range rep.Workloads {
		if w.Consumer != nil {
			found = true
			if w.Consumer.Decoded != n || w.Consumer.DecodeFailures != 0 {
				t.Errorf("consumer decoded %d, failed %d (%s), want %d and 0", w.Consumer.Decoded, w.Consumer.DecodeFailures, w.Consumer.DecodeError, n)
			}
		}
	}
	if len(rep.Verification) != 1 || rep.Verification[0].Read != n || rep.Verification[0].Lost != 0 || rep.Verification[0].Duplicated != 0 {
		t.Errorf("verification = %+v, want every one of %d records read back once", rep.Verification, n)
	}
	if !found {
		t.Error("no consumer in the result")
	}
}
