package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/cluster"
	"github.com/kbench/kbench/internal/result"
)

// securedCluster starts a 1-broker cluster of the test's own with its
// client listener on SASL_SSL and a second one on mutual TLS
// (Cluster.MTLSBootstrap), and returns it with its secrets (the generated
// password included).
func securedCluster(t *testing.T) (*cluster.Cluster, *cluster.Secrets) {
	t.Helper()
	if testing.Short() {
		t.Skip("conformance: starts a real Kafka broker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	st, _, _ := clusterTestState(t)
	c, err := cluster.Start(ctx, append(clusterOpts(st), cluster.WithName("sec"), cluster.WithHeap("512m"),
		cluster.WithStopOnExit(true), cluster.WithSecurity(cluster.SecuritySASLSSL), cluster.WithMutualTLSListener())...)
	if err != nil {
		t.Fatalf("start a secured cluster: %v", err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Stop(sctx, false); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("stop: %v", err)
		}
	})
	s, err := c.LoadSecrets()
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

// writeProps writes a client properties file.
func writeProps(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// produceConsume runs producer-perf-test and consumer-perf-test with the
// properties file and returns their combined output, failing the test
// unless both exit 0 and the consumer reads every record.
func produceConsume(t *testing.T, bootstrap, props string, extra ...string) string {
	t.Helper()
	topic := uniqueTopic(t, "sec")
	var out strings.Builder
	st, stdout, stderr := consumerTestState()
	if code := runKbench(t, st, append([]string{"producer-perf-test", "--topic", topic, "--num-records", "2000", "--record-size", "100",
		"--throughput", "-1", "--bootstrap-server", bootstrap, "--command-config", props, "--print-metrics"}, extra...)...); code != exitOK {
		t.Fatalf("producer-perf-test: exit %d\n%s%s", code, stdout, stderr)
	}
	out.WriteString(stdout.String() + stderr.String())
	st, stdout, stderr = consumerTestState()
	if code := runKbench(t, st, "consumer-perf-test", "--topic", topic, "--messages", "2000", "--bootstrap-server", bootstrap,
		"--command-config", props, "--print-metrics"); code != exitOK {
		t.Fatalf("consumer-perf-test: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout.String(), ", 2000, ") {
		t.Fatalf("consumer-perf-test did not read the 2000 records:\n%s", stdout)
	}
	out.WriteString(stdout.String() + stderr.String())
	return out.String()
}

// TestConformanceSecurity runs the security checks on real Kafka, one
// broker with both listeners: SASL_SSL (saslSSL) and mutual TLS
// (mutualTLS).
func TestConformanceSecurity(t *testing.T) {
	t.Parallel()
	c, s := securedCluster(t)
	t.Run("SASL_SSL", func(t *testing.T) { saslSSL(t, c.Bootstrap(), s) })
	t.Run("mutual TLS", func(t *testing.T) { mutualTLS(t, c.MTLSBootstrap(), s) })
}

// saslSSL is the security issue's judged run against a local SASL_SSL
// listener: SCRAM-SHA-512 and PLAIN with the drop-in tools and a plan; a
// wrong password is a clear authentication error well within 15 s; an
// untrusted server certificate is refused saying so; and nothing any run
// wrote, nor its output, holds the password.
func saslSSL(t *testing.T, bootstrap string, s *cluster.Secrets) {
	var written []string // every output, searched for the password at the end

	t.Run("SCRAM-SHA-512 drop-ins", func(t *testing.T) {
		written = append(written, produceConsume(t, bootstrap, s.ClientConfig))
	})
	t.Run("PLAIN drop-ins, PKCS12 trust store", func(t *testing.T) {
		props := writeProps(t, "security.protocol=SASL_SSL", "sasl.mechanism=PLAIN",
			`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="`+cluster.PLAINUser+`" password="`+s.Password+`";`,
			"ssl.truststore.type=PKCS12", "ssl.truststore.location="+s.TrustPKCS12, "ssl.truststore.password="+s.Password)
		written = append(written, produceConsume(t, bootstrap, props))
	})
	t.Run("SCRAM-SHA-256 plan", func(t *testing.T) {
		dir := t.TempDir()
		plan := filepath.Join(dir, "secure.yaml")
		text := `name: secure
cluster:
  bootstrap: ` + bootstrap + `
  properties:
    security.protocol: SASL_SSL
    sasl.mechanism: SCRAM-SHA-256
    sasl.jaas.config: 'org.apache.kafka.common.security.scram.ScramLoginModule required username="` + cluster.SCRAMUser + `" password="` + s.Password + `";'
    ssl.truststore.type: JKS
    ssl.truststore.location: ` + s.TrustJKS + `
    ssl.truststore.password: "` + s.Password + `"
topics: [{name: secure-plan, partitions: 2}]
workloads:
  - {name: writer, type: produce, topic: secure-plan, message: {size: 100}, records: 5000}
  - {name: reader, type: consume, topic: secure-plan, records: 5000}
`
		if err := os.WriteFile(plan, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		st, stdout, stderr := consumerTestState()
		if code := runKbench(t, st, "run", plan, "--out", out); code != exitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		doc, err := result.Read(filepath.Join(out, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		ws := doc.Plan.Scenarios[0].Repeats[0].Workloads
		if ws[0].Producer.Records != 5000 || ws[1].Consumer.Records != 5000 {
			t.Fatalf("produced %d, consumed %d; want 5000 each", ws[0].Producer.Records, ws[1].Consumer.Records)
		}
		written = append(written, stdout.String()+stderr.String())
		// Every file the run wrote.
		_ = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(path)
				written = append(written, path+":\n"+string(b))
			}
			return nil
		})
	})
	t.Run("wrong password", func(t *testing.T) {
		props := writeProps(t, "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512",
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="`+cluster.SCRAMUser+`" password="not-`+s.Password+`";`,
			"ssl.truststore.location="+s.CAFile)
		st, stdout, stderr := consumerTestState()
		began := time.Now()
		code := runKbench(t, st, "producer-perf-test", "--topic", "t", "--num-records", "10", "--record-size", "10",
			"--throughput", "-1", "--bootstrap-server", bootstrap, "--command-config", props)
		took := time.Since(began)
		if code == exitOK || took > 15*time.Second || !strings.Contains(stderr.String(), "authentication failed: check the user name and password in sasl.jaas.config") {
			t.Fatalf("exit %d after %s; want a clear authentication error within 15 s:\n%s%s", code, took, stdout, stderr)
		}
		written = append(written, stdout.String()+stderr.String())
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		props := writeProps(t, "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512",
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="`+cluster.SCRAMUser+`" password="`+s.Password+`";`)
		st, stdout, stderr := consumerTestState()
		code := runKbench(t, st, "consumer-perf-test", "--topic", "t", "--messages", "10", "--bootstrap-server", bootstrap, "--command-config", props)
		if code == exitOK || !strings.Contains(stderr.String(), "the broker's TLS certificate is not trusted") || !strings.Contains(stderr.String(), "ssl.truststore.location") {
			t.Fatalf("exit %d; want the certificate refused, saying so:\n%s%s", code, stdout, stderr)
		}
		written = append(written, stdout.String()+stderr.String())
	})
	for _, w := range written {
		if strings.Contains(w, s.Password) {
			t.Errorf("the password appears in what a run wrote:\n%s", w)
		}
	}
	if len(written) < 6 {
		t.Errorf("searched %d outputs; the runs above should have written more", len(written))
	}
}

// mutualTLS: a listener that requires client certificates takes kbench's
// from a PKCS12 and from a JKS keystore, and a client without a
// certificate is told what to give.
func mutualTLS(t *testing.T, bootstrap string, s *cluster.Secrets) {
	for _, ks := range []struct{ typ, path string }{{"PKCS12", s.KeyPKCS12}, {"JKS", s.KeyJKS}} {
		t.Run(ks.typ, func(t *testing.T) {
			props := writeProps(t, "security.protocol=SSL", "ssl.truststore.location="+s.CAFile,
				"ssl.keystore.type="+ks.typ, "ssl.keystore.location="+ks.path, "ssl.keystore.password="+s.Password)
			if out := produceConsume(t, bootstrap, props); strings.Contains(out, s.Password) {
				t.Errorf("the keystore password appears in the output:\n%s", out)
			}
		})
	}
	t.Run("no client certificate", func(t *testing.T) {
		props := writeProps(t, "security.protocol=SSL", "ssl.truststore.location="+s.CAFile)
		st, stdout, stderr := consumerTestState()
		code := runKbench(t, st, "producer-perf-test", "--topic", "t", "--num-records", "10", "--record-size", "10",
			"--throughput", "-1", "--bootstrap-server", bootstrap, "--command-config", props)
		if code == exitOK || !strings.Contains(stderr.String(), "client certificate") {
			t.Fatalf("exit %d; want an error asking for a client certificate:\n%s%s", code, stdout, stderr)
		}
	})
}
