package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/testkafka"
)

// TestPlanSecretsNeverShown: a plan with secrets in its properties, in its
// comments and in --set values runs against a real broker, and no file of
// the results folder and no output stream holds any of them; nor do the
// errors of the plan and of --set, nor --dry-run and preview. Regression:
// a commented-out sasl.jaas.config was copied into plan.yaml and
// report.html, and --set errors echoed a JAAS password.
func TestPlanSecretsNeverShown(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	dir := t.TempDir()
	topic := uniqueTopic(t, "secrets")
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(`# sasl.jaas.config: org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="SECRET-COMMENT-1";
name: secrets
cluster:
  properties:
    # ssl.keystore.password: SECRET-COMMENT-2
    sasl.jaas.config: org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="SECRET-FILE";
topics: [{name: `+topic+`, partitions: 1}]
workloads:
  - {name: p, type: produce, topic: `+topic+`, message: {size: 10}, records: 100} # token=SECRET-COMMENT-3
`), 0o644); err != nil {
		t.Fatal(err)
	}
	bs := "cluster.bootstrap=" + bootstrap
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"run", []string{"run", planFile, "--out", filepath.Join(dir, "out"), "--set", bs,
			"--set", `cluster.properties.ssl\.truststore\.password=SECRET-SET-1`}, exitOK},
		{"dry run", []string{"run", planFile, "--dry-run", "--set", `cluster.properties.ssl\.truststore\.password=SECRET-SET-1`}, exitOK},
		{"preview", []string{"preview", planFile, "--set", `cluster.properties.ssl\.key\.password=SECRET-SET-1`}, exitOK},
		{"unescaped dots", []string{"run", planFile, "--out", filepath.Join(dir, "bad1"),
			"--set", `cluster.properties.sasl.jaas.config=x required password="SECRET-SET-2";`}, exitUsage},
		{"not a list", []string{"run", planFile, "--out", filepath.Join(dir, "bad2"), "--set", `cluster.properties.sasl\.jaas\.config[0]=SECRET-SET-3`}, exitUsage},
		{"under a secret key", []string{"run", planFile, "--dry-run", "--set", `cluster.properties.sasl\.jaas\.config.x=SECRET-SET-4`}, exitUsage},
		{"bad JAAS", []string{"run", planFile, "--out", filepath.Join(dir, "bad3"), "--set", bs,
			"--set", `cluster.properties.security\.protocol=SASL_PLAINTEXT`, "--set", `cluster.properties.sasl\.mechanism=PLAIN`,
			"--set", `cluster.properties.sasl\.jaas\.config=bogus SECRET-SET-5`}, exitUsage},
		{"wrong login module", []string{"run", planFile, "--dry-run",
			"--set", `cluster.properties.security\.protocol=SASL_SSL`, "--set", `cluster.properties.sasl\.mechanism=SCRAM-SHA-256`}, exitUsage},
		{"no = in --set", []string{"run", planFile, "--dry-run", "--set", `cluster.properties.ssl\.truststore\.passwordSECRET-SET-6`}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, stdout, stderr := consumerTestState()
			if code := runKbench(t, st, tt.args...); code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, stderr)
			}
			streams := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}
			for name, text := range streams {
				if strings.Contains(text, "SECRET") {
					t.Errorf("%s shows a secret:\n%s", name, text)
				}
			}
		})
	}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == planFile {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if i := strings.Index(string(b), "SECRET"); i >= 0 {
			t.Errorf("%s holds a secret: ...%s...", path, b[max(i-80, 0):min(i+40, len(b))])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 { // result.json, summary.md, summary.csv, report.html, plan.yaml
		t.Fatalf("the run wrote %d files", files)
	}
}

// TestRegistryURLUserNeverShown: regression: a registry URL that carries
// its credentials (basic.auth.credentials.source: URL) was printed whole
// when the registry did not answer: http://bob:SECRET@... on stderr, in
// result.json's error and in report.html (sr's errors quote the URL they
// requested). No output and no file of the results folder holds the
// password, and the errors name the registry without its user.
func TestRegistryURLUserNeverShown(t *testing.T) {
	t.Parallel()
	bootstrap := testkafka.Fake(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	dead := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "user.avsc"), []byte(`{"type":"record","name":"User","fields":[{"name":"id","type":"string"}]}`), 0o644))
	planFile := filepath.Join(dir, "plan.yaml")
	must(t, os.WriteFile(planFile, []byte(`name: registry-secrets
cluster: {bootstrap: "`+bootstrap+`"}
schema_registry:
  schema.registry.url: URL
  basic.auth.credentials.source: URL
topics: [{name: `+uniqueTopic(t, "regsecrets")+`, partitions: 1}]
workloads:
  - name: p
    type: produce
    topic: t
    records: 10
    message: {format: avro, schema_file: user.avsc, template: {id: {_type: uuid}}}
`), 0o644))
	for _, tt := range []struct {
		name, url string
		args      []string
		code      int
		want      string
	}{
		{"unreachable", "http://bob:SECRET-URL@" + dead + "/apis", []string{"--out", filepath.Join(dir, "out")}, exitFailure,
			"schema registry http://" + dead + "/apis: schema registry unreachable"},
		{"not http", "ftp://bob:SECRET-URL@" + dead, []string{"--dry-run"}, exitUsage, `"ftp://` + dead + `": write an http:// or https:// URL`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, stdout, stderr := consumerTestState()
			args := append([]string{"run", planFile, "--set", "schema_registry.schema\\.registry\\.url=" + tt.url, "--set", "workloads[0].topic=" + uniqueTopic(t, "regsecrets")}, tt.args...)
			if code := runKbench(t, st, args...); code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, stderr)
			}
			for name, text := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
				if strings.Contains(text, "SECRET") || strings.Contains(text, "bob:***") || strings.Contains(text, "//bob@") {
					t.Errorf("%s shows the URL's password:\n%s", name, text)
				}
			}
		})
	}
	files := 0
	err = filepath.WalkDir(filepath.Join(dir, "out"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if i := strings.Index(string(b), "SECRET"); i >= 0 {
			t.Errorf("%s holds the password: ...%s...", path, b[max(i-80, 0):min(i+40, len(b))])
		}
		if i := strings.Index(string(b), "bob:***"); i >= 0 {
			t.Errorf("%s holds the user: ...%s...", path, b[max(i-80, 0):min(i+40, len(b))])
		}
		return nil
	})
	must(t, err)
	if files < 4 { // result.json, summary.md, summary.csv, report.html, plan.yaml
		t.Fatalf("the run wrote %d files", files)
	}
}
