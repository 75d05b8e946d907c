package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// manifestState is a process state for kubernetes manifest runs.
func manifestState() (*state, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	return &state{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}, &stdout, &stderr
}

// decodeManifest decodes the printed manifest strictly (unknown and
// duplicate fields refused) with the Kubernetes API's scheme: one Job,
// nothing else (a ConfigMap beside it outlived the Job's TTL).
func decodeManifest(t *testing.T, manifest []byte) *batchv1.Job {
	t.Helper()
	dec := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifest)))
	var job *batchv1.Job
	for i := 0; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := dec.Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("document %d: %v\n%s", i+1, err, doc)
		}
		o, ok := obj.(*batchv1.Job)
		if !ok || job != nil {
			t.Fatalf("document %d is a %T; want one Job and nothing else", i+1, obj)
		}
		job = o
	}
	if job == nil {
		t.Fatalf("want a Job:\n%s", manifest)
	}
	return job
}

// planOf is the plan the Job's pods get: its pod template's annotation.
func planOf(job *batchv1.Job) string {
	return job.Spec.Template.Annotations["kbench/plan.yaml"]
}

// TestKubernetesManifest runs the command and checks what the run needs
// in the objects it prints.
func TestKubernetesManifest(t *testing.T) {
	t.Parallel()
	plan := "../../examples/catch-up.yaml"
	text, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	st, stdout, stderr := manifestState()
	code := runKbench(t, st, "kubernetes", "manifest", plan, "--workers", "4", "--image", "registry.example.com/kbench:1.0",
		"--namespace", "bench", "--set", "cluster.bootstrap=kafka.kafka.svc:9092", "--set", "repeat=2", "--cpu", "2", "--memory", "3Gi")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	job := decodeManifest(t, stdout.Bytes())
	if planOf(job) != string(text) {
		t.Errorf("the Job's plan differs from the file")
	}
	if !regexp.MustCompile(`^catch-up-\d{8}-\d{6}$`).MatchString(job.Name) || job.Namespace != "bench" {
		t.Errorf("name %s/%s, want bench/catch-up-UTCTIME", job.Namespace, job.Name)
	}
	s := job.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 4 || *s.Parallelism != 4 {
		t.Errorf("completion mode %s, completions %d, parallelism %d; want Indexed, 4, 4", *s.CompletionMode, *s.Completions, *s.Parallelism)
	}
	// 2 repeats of 1m: 2 × 2m + 2 runs × 1m + 15m.
	if *s.ActiveDeadlineSeconds != 21*60 {
		t.Errorf("activeDeadlineSeconds %d, want %d", *s.ActiveDeadlineSeconds, 21*60)
	}
	c := s.Template.Spec.Containers[0]
	want := []string{"run", "/etc/kbench/plan.yaml", "--workers", "4", "--keep-control", "--set", "cluster.bootstrap=kafka.kafka.svc:9092", "--set", "repeat=2"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args %q, want %q", c.Args, want)
	}
	if c.Resources.Limits.Cpu().String() != "2" || c.Resources.Requests.Memory().String() != "3Gi" {
		t.Errorf("resources %v", c.Resources)
	}
	if aa := s.Template.Spec.Affinity.PodAntiAffinity; len(aa.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Errorf("anti-affinity %+v, want one preferred term (the default spread)", aa)
	}
}

// TestKubernetesManifestWarnsOfSecrets: a password in the plan's client
// properties ends up in clear in the manifest, and the user is told.
func TestKubernetesManifestWarnsOfSecrets(t *testing.T) {
	t.Parallel()
	st, stdout, stderr := manifestState()
	code := runKbench(t, st, "kubernetes", "manifest", "../../examples/catch-up.yaml", "--workers", "2", "--image", "kbench:1",
		"--set", "cluster.bootstrap=kafka:9092", "--set", "cluster.properties.security\\.protocol=SASL_SSL",
		"--set", "cluster.properties.sasl\\.mechanism=PLAIN",
		"--set", `cluster.properties.sasl\.jaas\.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";`)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	decodeManifest(t, stdout.Bytes())
	want := "kbench: warning: ../../examples/catch-up.yaml: the manifest holds the secret values of cluster.properties.sasl.jaas.config in clear"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

// TestKubernetesManifestRefuses: every bad input is a usage error (exit
// 2) that names the flag or the field and how to fix it, and nothing is
// printed.
func TestKubernetesManifestRefuses(t *testing.T) {
	t.Parallel()
	const plan = "../../examples/catch-up.yaml"
	ok := []string{"--workers", "3", "--image", "kbench:1", "--set", "cluster.bootstrap=kafka:9092"}
	with := func(args ...string) []string {
		return append(append([]string{"kubernetes", "manifest", plan}, ok...), args...)
	}
	dir := t.TempDir()
	named := filepath.Join(dir, "named.yaml")
	if err := os.WriteFile(named, []byte("name: n\ncluster: {name: kbench}\nworkloads: [{name: w, type: produce, topic: t, rate: 1k/s, duration: 1m, message: {size: 10}}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no workers", []string{"kubernetes", "manifest", plan, "--image", "kbench:1", "--set", "cluster.bootstrap=kafka:9092"}, "--workers: missing; give how many kbench workers (pods) run the plan, such as --workers 3"},
		{"negative workers", with("--workers", "-2"), "--workers -2: give how many kbench workers (pods) run the plan, 1 or more"},
		// --workers 0 was called missing.
		{"zero workers", with("--workers", "0"), "--workers 0: give how many kbench workers (pods) run the plan, 1 or more"},
		{"too many workers", with("--workers", "100001"), "--workers 100001: an Indexed Job runs at most 100000 pods"},
		{"no image", []string{"kubernetes", "manifest", plan, "--workers", "3", "--set", "cluster.bootstrap=kafka:9092"}, "--image: missing; give the kbench image"},
		{"image with a space", with("--image", "kbench 1"), `--image "kbench 1": an image reference has no spaces`},
		{"no bootstrap", []string{"kubernetes", "manifest", plan, "--workers", "3", "--image", "kbench:1"}, "no cluster.bootstrap: the workers of a distributed run need a cluster they all reach (a local cluster kbench starts cannot be shared by several machines); add --set cluster.bootstrap=HOST:PORT"},
		// It advised a --set cluster.bootstrap, which cluster.name refuses.
		{"a named local cluster", []string{"kubernetes", "manifest", named, "--workers", "3", "--image", "kbench:1"},
			`cluster.name "kbench" is a local cluster from kbench cluster up, on one machine: the pods cannot reach it, and --set cannot take cluster.name out (cluster.bootstrap beside it is refused); in the plan, replace cluster.name with cluster.bootstrap: HOST:PORT`},
		{"a named local cluster and a bootstrap", []string{"kubernetes", "manifest", named, "--workers", "3", "--image", "kbench:1", "--set", "cluster.bootstrap=kafka:9092"},
			"give name (a cluster started with kbench cluster up) or bootstrap (any other cluster), not both"},
		{"bad plan value", with("--set", "repeat=0"), "repeat"},
		{"unknown plan field", with("--set", "workloads[0].rat=5"), `did you mean "rate"?`},
		{"missing plan", []string{"kubernetes", "manifest", filepath.Join(dir, "none.yaml"), "--workers", "3", "--image", "kbench:1"}, "none.yaml"},
		{"plan reading files", []string{"kubernetes", "manifest", "../../examples/partition-study.yaml", "--workers", "3", "--image", "kbench:1", "--set", "cluster.bootstrap=kafka:9092"},
			"reads files beside it, and the pods get the plan alone (the Job carries it to /etc/kbench): scenario partitions=1 message=payload_file=payloads/orders.json: workloads[0] \"latency\": message.payload_file: payload file /etc/kbench/payloads/orders.json"},
		{"unknown length", []string{"kubernetes", "manifest", "../../examples/record-size-sweep.yaml", "--workers", "3", "--image", "kbench:1", "--set", "cluster.bootstrap=kafka:9092"},
			"5 scenario(s) of unknown length (records without a rate, or a rate search), so the Job's deadline cannot come from the plan; give --deadline"},
		{"short deadline", with("--deadline", "10s"), "--deadline 10s: too short"},
		{"negative deadline", with("--deadline", "-1h"), "--deadline -1h0m0s: must not be negative"},
		{"bad cpu", with("--cpu", "lots"), `--cpu "lots": not a Kubernetes quantity; give one such as 2 or 500m`},
		{"zero memory", with("--memory", "0"), "--memory 0: must be more than 0"},
		{"bad spread", with("--spread", "require"), `--spread "require": give preferred or required; did you mean required?`},
		{"bad name", with("--name", "Catch_Up"), "--name Catch_Up: not a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters; such as --name catch-up-"},
		{"long name", with("--name", strings.Repeat("a", 62)), "--name " + strings.Repeat("a", 62) + ": 62 characters; with 3 worker(s) a Job name has at most 61: the pods' hostnames are NAME-INDEX, at most 63 characters"},
		{"bad namespace", with("--namespace", "Bench"), "--namespace Bench: not a DNS label"},
		{"bad service account", with("--service-account", "Faults!"), "--service-account Faults!: not a DNS subdomain"},
		{"unknown flag", with("--imag", "x"), "kubernetes manifest: unknown flag: --imag; did you mean --image? (see 'kbench kubernetes manifest --help')"},
		{"no plan", []string{"kubernetes", "manifest", "--workers", "3"}, "kubernetes manifest: accepts 1 arg(s), received 0; usage: kbench kubernetes manifest PLAN.yaml"},
		{"unknown command", []string{"kubernetes", "manifests"}, `unknown command "manifests" for 'kbench kubernetes'; did you mean "manifest"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, stdout, stderr := manifestState()
			if code := runKbench(t, st, tt.args...); code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q, want it to say %q", stderr, tt.want)
			}
			if stdout.Len() > 0 {
				t.Errorf("printed %q before refusing", stdout)
			}
		})
	}
}
