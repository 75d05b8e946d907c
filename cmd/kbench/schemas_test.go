package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A template that does not fit its schema is refused at --dry-run, exit 2,
// with the field's file:line:column; the shipped example passes it.
func TestDryRunRefusesATemplateThatDoesNotFitItsSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	avsc := `{"type":"record","name":"User","fields":[{"name":"id","type":"string"},{"name":"value","type":"int"}]}`
	if err := os.WriteFile(filepath.Join(dir, "user.avsc"), []byte(avsc), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := `name: bad
workloads:
  - name: w
    type: produce
    topic: t
    records: 10
    message:
      format: avro
      schema_file: user.avsc
      template:
        id: {_type: uuid}
        value: {_type: random_string, _length: 4}
`
	path := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	st := &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	if code := runKbench(t, st, "run", path, "--dry-run"); code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, exitUsage, stderr.String())
	}
	want := "plan.yaml:12:9: workloads[0].message.template.value: does not fit the avro schema User: is a string; the schema wants int"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant %q", stderr.String(), want)
	}

	var out2, err2 syncBuffer
	st = &state{stdout: &out2, stderr: &err2, getenv: func(string) string { return "" }}
	if code := runKbench(t, st, "run", filepath.Join("..", "..", "examples", "schema-formats.yaml"), "--dry-run"); code != exitOK {
		t.Fatalf("examples/schema-formats.yaml --dry-run: exit %d\n%s", code, err2.String())
	}
}
