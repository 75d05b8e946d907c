package main

import (
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
