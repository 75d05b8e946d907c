package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const schemaPlan = `name: s
cluster: {bootstrap: h:9092}
schema_registry:
  schema.registry.url: http://127.0.0.1:8081
  basic.auth.user.info: alice:s3cret
workloads:
  - name: w
    type: produce
    topic: users
    records: 10
    message:
      format: FORMAT
      schema_file: SCHEMA
      template:
        id: {_type: uuid}
        age: AGE
        address:
          city: {_type: one_of, _values: [Oslo, Lima]}
`

const userAvsc = `{"type":"record","name":"User","namespace":"t","fields":[
  {"name":"id","type":"string"},{"name":"age","type":"int"},
  {"name":"address","type":{"type":"record","name":"Address","fields":[{"name":"city","type":"string"}]}}]}`

const userProto = `syntax = "proto3";
message User { string id = 1; int32 age = 2; Address address = 3; }
message Address { string city = 1; }`

const userJSONSchema = `{"title":"t.User","type":"object","properties":{"id":{"type":"string"},"age":{"type":"integer"},
  "address":{"type":"object","properties":{"city":{"type":"string"}}}},"required":["id","age","address"]}`

// A template that does not fit its schema is refused when the plan is
// checked (kbench run --dry-run), at the field, with file:line:column.
func TestTemplateAgainstSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{"user.avsc": userAvsc, "user.proto": userProto, "user.json": userJSONSchema} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ format, schema, age, want string }{
		{"avro", "user.avsc", "{_type: random_int, _min: 1, _max: 99}", ""},
		{"protobuf", "user.proto", "{_type: random_int, _min: 1, _max: 99}", ""},
		{"json_schema", "user.json", "{_type: random_int, _min: 1, _max: 99}", ""},
		{"avro", "user.avsc", "{_type: random_string, _length: 3}", "plan.yaml:16:9: workloads[0].message.template.age: does not fit the avro schema t.User: is a string; the schema wants int"},
		{"protobuf", "user.proto", "{_type: random_string, _length: 3}", "plan.yaml:16:9: workloads[0].message.template.age: does not fit the protobuf schema User: is a string, not a whole number"},
		{"json_schema", "user.json", "{_type: random_string, _length: 3}", "plan.yaml:16:9: workloads[0].message.template.age: does not fit the json_schema schema t.User"},
		{"avro", "user.avsc", "{_type: random_int, _min: 1, _max: 99}\n        agee: {_type: uuid}", "plan.yaml:17:9: workloads[0].message.template.agee: does not fit the avro schema t.User: is not a field of record t.User; remove it from the template or add it to the schema (did you mean age?)"},
		{"avro", "nope.avsc", "1", "plan.yaml:13:20: workloads[0].message.schema_file:"},
		{"xml", "user.avsc", "1", "workloads[0].message.format:"},
	} {
		plan := strings.NewReplacer("FORMAT", tc.format, "SCHEMA", tc.schema, "AGE", tc.age).Replace(schemaPlan)
		p, err := testParse(filepath.Join(dir, "plan.yaml"), []byte(plan), nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s: %v", tc.format, tc.age, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %s: err = %v\nwant %q", tc.format, tc.age, err, tc.want)
		case tc.want == "":
			if !p.UsesSchemas() || p.SchemaRegistry["schema.registry.url"] != "http://127.0.0.1:8081" {
				t.Errorf("UsesSchemas %v, registry %v", p.UsesSchemas(), p.SchemaRegistry)
			}
			if r := string(p.Redacted()); strings.Contains(r, "s3cret") {
				t.Errorf("basic.auth.user.info is not redacted:\n%s", r)
			}
		}
	}
}

func TestSchemaRegistryProperties(t *testing.T) {
	t.Parallel()
	base := "name: s\ncluster: {bootstrap: h:9092}\nschema_registry: {PROPS}\nworkloads:\n  - {name: w, type: produce, topic: t, records: 1, message: {size: 10}}\n"
	for props, want := range map[string]string{
		"schema.registry.uri: http://x":   "plan.yaml:3:19: schema_registry.schema.registry.uri: is not a schema registry property kbench reads; did you mean schema.registry.url?",
		"auto.register.schemas: maybe":    "plan.yaml:3:42: schema_registry.auto.register.schemas: \"maybe\": write true or false",
		"schema.registry.url: ftp://x":    "schema_registry.schema.registry.url: \"ftp://x\": write an http:// or https:// URL",
		"value.subject.name.strategy: No": "use one of TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy",
	} {
		_, err := testParse("plan.yaml", []byte(strings.Replace(base, "PROPS", props, 1)), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant %q", props, err, want)
		}
	}
}

// TestSchemaFileBounded: regression: a schema_file of 10.7 MB (under the
// plan's 16 MiB bound) was read and parsed: minutes and 3.9 GB with no
// output. A schema is read up to serde.MaxSchema (1 MiB), the error at
// schema_file naming the file.
func TestSchemaFileBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := `{"type":"record","name":"User","namespace":"t","doc":"` + strings.Repeat("x", 2<<20) + `","fields":[{"name":"id","type":"string"}]}`
	if err := os.WriteFile(filepath.Join(dir, "big.avsc"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := strings.NewReplacer("FORMAT", "avro", "SCHEMA", "big.avsc", "AGE", "1").Replace(schemaPlan)
	_, err := testParse(filepath.Join(dir, "plan.yaml"), []byte(plan), nil)
	want := "plan.yaml:13:20: workloads[0].message.schema_file: " + filepath.Join(dir, "big.avsc") + " is larger than 1 MiB, the most kbench reads for a schema: is it the right file?"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v\nwant %q", err, want)
	}
}

// TestSchemaFileErrorsNameTheFile: regression: an empty or truncated .avsc
// said "avro: unknown type:" (and quoted the whole schema); a JSON Schema's
// errors named a made-up file:///.../schema.json and a .proto's
// schema.proto. Each now names the user's file and says what is wrong.
func TestSchemaFileErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"empty.avsc":  "\n",
		"trunc.avsc":  `{"type":"record","name":"User","namespace":"t","fields":[{"name":"id","type":"string"}`,
		"typo.avsc":   `{"type":"recrd","name":"User","fields":[` + strings.Repeat(`{"name":"f","type":"string"},`, 50) + `{"name":"id","type":"string"}]}`,
		"trunc.json":  `{"type":"object",`,
		"notjs.json":  "{\"type\":\"object\",\n  \"properties\": x}",
		"bad.json":    `{"type":"object","properties":{"id":{"type":"strin"}}}`,
		"user.proto":  "syntax = \"proto3\";\nmessage User { string id = 1 }\n",
		"empty.proto": "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ format, file, want string }{
		{"avro", "empty.avsc", "schema_file: empty.avsc is not a valid avro schema: it is empty: write the schema's JSON"},
		{"avro", "trunc.avsc", "schema_file: trunc.avsc is not a valid avro schema: its JSON ends before it is complete (a bracket or brace is not closed): is the file truncated?"},
		{"avro", "typo.avsc", "schema_file: typo.avsc is not a valid avro schema: parse Avro schema: avro: unknown type: "},
		{"json_schema", "trunc.json", "schema_file: trunc.json is not a valid json_schema schema: its JSON ends before it is complete"},
		{"json_schema", "notjs.json", "schema_file: notjs.json is not a valid json_schema schema: it is not JSON: line 2, column 17: invalid character 'x'"},
		{"json_schema", "bad.json", `schema_file: bad.json is not a valid json_schema schema: parse JSON Schema: "bad.json#" is not valid against metaschema`},
		{"protobuf", "user.proto", "schema_file: user.proto is not a valid protobuf schema: parse Protobuf schema: user.proto:2:30: syntax error: expecting ';'"},
		{"protobuf", "empty.proto", "schema_file: empty.proto is not a valid protobuf schema: parse Protobuf schema: it defines no message"},
	} {
		plan := strings.NewReplacer("FORMAT", tc.format, "SCHEMA", tc.file, "AGE", "1").Replace(schemaPlan)
		_, err := testParse(filepath.Join(dir, "plan.yaml"), []byte(plan), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v\nwant %q", tc.file, err, tc.want)
			continue
		}
		for _, bad := range []string{"schema.json", "schema.proto", "unknown type: \n", "file://"} {
			if strings.Contains(err.Error(), bad) {
				t.Errorf("%s: err names %q: %v", tc.file, bad, err)
			}
		}
		if len(err.Error()) > 600 {
			t.Errorf("%s: an error of %d bytes: %v", tc.file, len(err.Error()), err)
		}
	}
}

// TestMisspeltTemplateFieldSaysDidYouMean: regression: a template field
// misspelt (qtty for qty) got no did-you-mean for Protobuf, and for Avro
// only "qty is missing" at the template's first key. Every format now
// refuses the misspelt key, at its place, with the name it meant, in
// nested records too.
func TestMisspeltTemplateFieldSaysDidYouMean(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{"user.avsc": userAvsc, "user.proto": userProto, "user.json": userJSONSchema} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ format, file, what string }{
		{"avro", "user.avsc", "is not a field of record t.User"},
		{"protobuf", "user.proto", "is not a field of message User"},
		{"json_schema", "user.json", "is not a property of the schema"},
	} {
		plan := strings.NewReplacer("FORMAT", tc.format, "SCHEMA", tc.file, "AGE", "1", "        age:", "        agge:").Replace(schemaPlan)
		_, err := testParse(filepath.Join(dir, "plan.yaml"), []byte(plan), nil)
		want := "plan.yaml:16:9: workloads[0].message.template.agge: does not fit"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.what) || !strings.Contains(err.Error(), "(did you mean age?)") {
			t.Errorf("%s: err = %v\nwant %q ... %q ... (did you mean age?)", tc.format, err, want, tc.what)
		}
		nested := strings.NewReplacer("FORMAT", tc.format, "SCHEMA", tc.file, "AGE", "1", "          city:", "          ctiy:").Replace(schemaPlan)
		_, err = testParse(filepath.Join(dir, "plan.yaml"), []byte(nested), nil)
		if err == nil || !strings.Contains(err.Error(), "template.address.ctiy: does not fit") || !strings.Contains(err.Error(), "(did you mean city?)") {
			t.Errorf("%s nested: err = %v", tc.format, err)
		}
	}
}

// TestUnknownFormatIsOneProblem: regression: format: thrift was reported,
// and then again as "gives a schema but no format" at schema_file.
func TestUnknownFormatIsOneProblem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "user.avsc"), []byte(userAvsc), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := strings.NewReplacer("FORMAT", "thrift", "SCHEMA", "user.avsc", "AGE", "1").Replace(schemaPlan)
	_, err := testParse(filepath.Join(dir, "plan.yaml"), []byte(plan), nil)
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 || !strings.Contains(err.Error(), `plan.yaml:12:15: workloads[0].message.format: "thrift" is not one of avro, json_schema or protobuf`) {
		t.Fatalf("err = %v, want one problem at format", err)
	}
}
