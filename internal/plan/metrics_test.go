package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/certs"
)

// TestParseClusterMetrics: cluster.metrics lists a remote cluster's
// Prometheus endpoints, each a URL or a mapping with TLS and basic auth;
// every mistake is said at its place, and the password is never echoed
// nor written out.
func TestParseClusterMetrics(t *testing.T) {
	t.Parallel()
	plan := func(cluster string) string {
		return "name: m\ncluster: " + cluster + "\nworkloads:\n  - {name: w, type: produce, topic: t, records: 10, message: {size: 10}}\n"
	}
	dir := t.TempDir()
	ca, err := certs.NewCA("kbench test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), ca.CertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(dir, "plan.yaml")
	p, err := testParse(planPath, []byte(plan(`{bootstrap: "h:9092", metrics: [http://b1:9404/metrics, {url: "https://b2:9404/metrics", ca_file: ca.pem, username: kb, password: s3cret}]}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Cluster.Metrics
	for i := range got {
		got[i].At = ""
	}
	want := []MetricsEndpoint{{URL: "http://b1:9404/metrics"}, {URL: "https://b2:9404/metrics", CAFile: filepath.Join(dir, "ca.pem"), Username: "kb", Password: "s3cret"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metrics %+v, want %+v", got, want)
	}
	if asRun := string(p.Redacted()); strings.Contains(asRun, "s3cret") {
		t.Errorf("the plan as run holds the password:\n%s", asRun)
	}

	tests := []struct{ name, cluster, want string }{
		{"not a list", `{bootstrap: "h:9092", metrics: http://b1/metrics}`, `plan.yaml:2:41: cluster.metrics: is "http://b1/metrics"; write a list of Prometheus endpoints`},
		{"empty", `{bootstrap: "h:9092", metrics: []}`, "plan.yaml:2:41: cluster.metrics: is an empty list"},
		{"not a URL", `{bootstrap: "h:9092", metrics: [b1:9404]}`, `plan.yaml:2:42: cluster.metrics[0]: "b1:9404" is not an http or https URL with a host`},
		{"no host", `{bootstrap: "h:9092", metrics: ["http:///metrics"]}`, `cluster.metrics[0]: "http:///metrics" is not an http or https URL with a host`},
		{"a user in the URL", `{bootstrap: "h:9092", metrics: ["https://kb:s3cret@b1/metrics"]}`, "cluster.metrics[0]: https://kb:[redacted]@b1/metrics carries a user in the URL; give username and password as fields of their own"},
		{"no url", `{bootstrap: "h:9092", metrics: [{ca_file: ca.pem}]}`, "plan.yaml:2:42: cluster.metrics[0]: has no url"},
		{"unknown field", `{bootstrap: "h:9092", metrics: [{url: "https://b1/m", ca: ca.pem}]}`, `cluster.metrics[0]: unknown field "ca"`},
		{"TLS on http", `{bootstrap: "h:9092", metrics: [{url: "http://b1/m", insecure: true}]}`, "cluster.metrics[0]: http://b1/m is plain http: ca_file and insecure apply to https endpoints only"},
		{"CA and insecure", `{bootstrap: "h:9092", metrics: [{url: "https://b1/m", ca_file: ca.pem, insecure: true}]}`, "cluster.metrics[0]: give ca_file (check the endpoint's certificate against it) or insecure (no check), not both"},
		{"insecure not a bool", `{bootstrap: "h:9092", metrics: [{url: "https://b1/m", insecure: yes please}]}`, `cluster.metrics[0].insecure: "yes please" is not true or false`},
		{"password alone", `{bootstrap: "h:9092", metrics: [{url: "https://b1/m", password: s3cret}]}`, "cluster.metrics[0]: has a password and no username"},
		{"twice", `{bootstrap: "h:9092", metrics: [http://b1/m, http://b1/m]}`, "plan.yaml:2:55: cluster.metrics[1]: http://b1/m is given twice"},
		{"a CA file missing", `{bootstrap: "h:9092", metrics: [{url: "https://b1/m", ca_file: nothere.pem}]}`, "plan.yaml:2:73: cluster.metrics[0].ca_file: open "},
		{"a CA file of a key", `{bootstrap: "h:9092", metrics: [{url: "https://b1/m", ca_file: key.pem}]}`, "cluster.metrics[0].ca_file: key.pem holds no PEM certificate"},
		{"a local cluster", `{local: {brokers: 1}, metrics: [http://b1/m]}`, "cluster.metrics: are a remote cluster's endpoints, with cluster.bootstrap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := testParse(planPath, []byte(plan(tt.cluster)), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error echoes the password: %v", err)
			}
		})
	}
}
