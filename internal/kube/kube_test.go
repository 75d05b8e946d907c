package kube_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kbench/kbench/internal/kube"
)

// decodeStrict decodes a manifest's documents as the API server's scheme
// does, refusing unknown and duplicate fields, and returns its Job, the
// one object: a ConfigMap beside it was left behind by the Job's TTL.
func decodeStrict(t *testing.T, manifest []byte) *batchv1.Job {
	t.Helper()
	objs, err := decodeAll(manifest)
	if err != nil {
		t.Fatalf("%v\n%s", err, manifest)
	}
	if len(objs) != 1 {
		t.Fatalf("%d objects, want the Job alone:\n%s", len(objs), manifest)
	}
	job, ok := objs[0].(*batchv1.Job)
	if !ok {
		t.Fatalf("the object is %T, want the Job", objs[0])
	}
	return job
}

func decodeAll(manifest []byte) ([]runtime.Object, error) {
	dec := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifest)))
	var objs []runtime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, _, err := dec.Decode(doc, nil, nil)
		if err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
}

func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
		}
	}
	return out
}

// TestKubeStrictDecoderRefuses shows the decoder the tests rely on is strict:
// a field the API does not have, or one given twice, is an error.
func TestKubeStrictDecoderRefuses(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"unknown":   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndatas: {a: b}\n",
		"duplicate": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\ndata: {c: d}\n",
	} {
		if _, err := decodeAll([]byte(doc)); err == nil {
			t.Errorf("%s field: decoded without an error", name)
		}
	}
}

func job(t *testing.T) kube.Job {
	t.Helper()
	return kube.Job{
		Name:     "catch-up-20260131-150405",
		Image:    "registry.example.com/kbench:1.0",
		Workers:  3,
		Plan:     []byte("name: catch-up\ncluster: {bootstrap: kafka:9092}\n"),
		CPU:      resource.MustParse("2"),
		Memory:   resource.MustParse("2Gi"),
		Deadline: 20 * time.Minute,
	}
}

// TestManifest writes manifests, decodes them strictly and checks that the
// Job has what a distributed run needs.
func TestManifest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*kube.Job)
		want func(t *testing.T, j *batchv1.Job)
	}{
		{name: "defaults"},
		{name: "one worker", edit: func(j *kube.Job) { j.Workers = 1 }},
		{name: "namespace", edit: func(j *kube.Job) { j.Namespace = "bench" }},
		{name: "mutable tag", edit: func(j *kube.Job) { j.Image = "registry.example.com/kbench:latest" },
			want: func(t *testing.T, j *batchv1.Job) {
				if p := j.Spec.Template.Spec.Containers[0].ImagePullPolicy; p != corev1.PullAlways {
					t.Errorf("imagePullPolicy %q for :latest, want Always", p)
				}
			}},
		{name: "required spread", edit: func(j *kube.Job) { j.Spread = kube.Required },
			want: func(t *testing.T, j *batchv1.Job) {
				aa := j.Spec.Template.Spec.Affinity.PodAntiAffinity
				if len(aa.RequiredDuringSchedulingIgnoredDuringExecution) != 1 || len(aa.PreferredDuringSchedulingIgnoredDuringExecution) != 0 {
					t.Errorf("anti-affinity %+v, want one required term", aa)
				}
			}},
		{name: "service account", edit: func(j *kube.Job) { j.ServiceAccount = "kbench-faults" },
			want: func(t *testing.T, j *batchv1.Job) {
				s := j.Spec.Template.Spec
				if s.ServiceAccountName != "kbench-faults" || s.AutomountServiceAccountToken != nil {
					t.Errorf("service account %q, automount %v: want kbench-faults with its token", s.ServiceAccountName, s.AutomountServiceAccountToken)
				}
			}},
		{name: "sets", edit: func(j *kube.Job) {
			j.Sets = []string{"cluster.bootstrap=kafka.kafka.svc:9092", "cluster.fault_commands.kill=kubectl delete pod kafka-{broker} -n $(NS) $HOME"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := job(t)
			if tt.edit != nil {
				tt.edit(&in)
			}
			var out bytes.Buffer
			if err := kube.Write(&out, in); err != nil {
				t.Fatal(err)
			}
			j := decodeStrict(t, out.Bytes())
			checkRun(t, in, j)
			if tt.want != nil {
				tt.want(t, j)
			}
		})
	}
}

// checkRun checks what every manifest must hold for the run.
func checkRun(t *testing.T, in kube.Job, j *batchv1.Job) {
	t.Helper()
	if j.Name != in.Name || j.Namespace != in.Namespace {
		t.Errorf("name %s/%s, want %s/%s", j.Namespace, j.Name, in.Namespace, in.Name)
	}
	if got := j.Spec.Template.Annotations[kube.PlanAnnotation]; got != string(in.Plan) {
		t.Errorf("the pods' plan %q, want %q", got, in.Plan)
	}
	s := j.Spec
	n := int32(in.Workers)
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || deref(s.Completions) != n || deref(s.Parallelism) != n {
		t.Errorf("completion mode %v, completions %d, parallelism %d: want Indexed, %d, %d", s.CompletionMode, deref(s.Completions), deref(s.Parallelism), n, n)
	}
	if deref(s.BackoffLimitPerIndex) != 0 || s.BackoffLimitPerIndex == nil || s.MaxFailedIndexes == nil || *s.MaxFailedIndexes != 0 {
		t.Errorf("backoffLimitPerIndex %v, maxFailedIndexes %v: want 0 and 0 (one failed worker fails the run)", s.BackoffLimitPerIndex, s.MaxFailedIndexes)
	}
	if got := deref(s.ActiveDeadlineSeconds); got != int64(in.Deadline/time.Second) {
		t.Errorf("activeDeadlineSeconds %d, want %d", got, int64(in.Deadline/time.Second))
	}
	if s.TTLSecondsAfterFinished == nil || *s.TTLSecondsAfterFinished <= 0 {
		t.Errorf("ttlSecondsAfterFinished %v, want a bound", s.TTLSecondsAfterFinished)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != in.Image {
		t.Errorf("image %q, want %q", c.Image, in.Image)
	}
	want := []string{"run", "/etc/kbench/plan.yaml", "--workers", itoa(in.Workers), "--keep-control"}
	for _, set := range in.Sets {
		want = append(want, "--set", strings.ReplaceAll(set, "$", "$$"))
	}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args %q, want %q", c.Args, want)
	}
	for i, set := range in.Sets {
		if got := unescape(c.Args[6+2*i]); got != set {
			t.Errorf("--set %q reaches kbench as %q after Kubernetes expands it", set, got)
		}
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	id := env[kube.RunIDEnv]
	if id.ValueFrom == nil || id.ValueFrom.FieldRef == nil || id.ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/job-name']" {
		t.Errorf("%s = %+v, want the Job's name from the downward API", kube.RunIDEnv, id)
	}
	if c.Resources.Requests.Cpu().Cmp(in.CPU) != 0 || c.Resources.Limits.Cpu().Cmp(in.CPU) != 0 ||
		c.Resources.Requests.Memory().Cmp(in.Memory) != 0 || c.Resources.Limits.Memory().Cmp(in.Memory) != 0 {
		t.Errorf("resources %+v, want requests = limits = %s CPU, %s", c.Resources, in.CPU.String(), in.Memory.String())
	}
	// The plan: the pod template's annotation, projected read-only at
	// PlanPath by a downwardAPI volume.
	mounted := false
	for _, m := range c.VolumeMounts {
		if m.MountPath == kube.PlanDir && m.ReadOnly {
			for _, v := range pod.Volumes {
				d := v.DownwardAPI
				mounted = mounted || v.Name == m.Name && d != nil && len(d.Items) == 1 && d.Items[0].Path == kube.PlanKey &&
					d.Items[0].FieldRef != nil && d.Items[0].FieldRef.FieldPath == "metadata.annotations['"+kube.PlanAnnotation+"']"
			}
		}
	}
	if !mounted {
		t.Errorf("the plan's annotation is not mounted read-only at %s: %+v, %+v", kube.PlanPath, c.VolumeMounts, pod.Volumes)
	}
	// The working directory: an emptyDir with a bound (it had none).
	for _, v := range pod.Volumes {
		if v.EmptyDir != nil && (v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.Cmp(resource.MustParse(kube.MaxWorkDir)) != 0) {
			t.Errorf("emptyDir %s: sizeLimit %v, want %s", v.Name, v.EmptyDir.SizeLimit, kube.MaxWorkDir)
		}
	}
	if got, want := c.ImagePullPolicy, corev1.PullPolicy(kube.PullPolicy(in.Image)); got != want {
		t.Errorf("imagePullPolicy %q, want %q for %s", got, want, in.Image)
	}
	var terms []corev1.PodAffinityTerm
	if pod.Affinity != nil && pod.Affinity.PodAntiAffinity != nil {
		aa := pod.Affinity.PodAntiAffinity
		terms = append(terms, aa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range aa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if len(terms) != 1 || terms[0].TopologyKey != "kubernetes.io/hostname" || terms[0].LabelSelector == nil ||
		terms[0].LabelSelector.MatchLabels["batch.kubernetes.io/job-name"] != in.Name {
		t.Errorf("anti-affinity terms %+v, want one on kubernetes.io/hostname for the Job's pods", terms)
	}
}

// unescape is Kubernetes' expansion of a container arg with no variable
// defined: $$ becomes $.
func unescape(arg string) string { return strings.ReplaceAll(arg, "$$", "$") }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func itoa(n int) string { return resource.NewQuantity(int64(n), resource.DecimalSI).String() }

// TestManifestKeepsThePlanByteForByte: the Job gives the workers exactly
// the file, whatever YAML would make of its spaces and lines.
func TestManifestKeepsThePlanByteForByte(t *testing.T) {
	t.Parallel()
	for name, plan := range map[string]string{
		"no final newline":   "name: x\ncluster: {bootstrap: k:9092}",
		"trailing spaces":    "name: x   \n\tcluster: {bootstrap: k:9092}\n\n\n",
		"CRLF":               "name: x\r\ncluster: {bootstrap: k:9092}\r\n",
		"documents and tabs": "---\nname: x\n...\n---\n\t# a tab\n",
		"unicode":            "name: ünïcødé ✓\ndescription: \"quoted: \\\"x\\\"\"\n",
		"leading spaces":     "  name: x\n    y: |\n      z\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := job(t)
			in.Plan = []byte(plan)
			var out bytes.Buffer
			if err := kube.Write(&out, in); err != nil {
				t.Fatal(err)
			}
			j := decodeStrict(t, out.Bytes())
			if got := j.Spec.Template.Annotations[kube.PlanAnnotation]; got != plan {
				t.Errorf("plan %q, want %q", got, plan)
			}
		})
	}
}

func TestKubeWriteRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*kube.Job)
		want string
	}{
		{"no name", func(j *kube.Job) { j.Name = "" }, "name"},
		{"upper case name", func(j *kube.Job) { j.Name = "Catch-Up" }, "name"},
		{"no workers", func(j *kube.Job) { j.Workers = 0 }, "workers 0"},
		{"no image", func(j *kube.Job) { j.Image = "" }, "image"},
		{"binary plan", func(j *kube.Job) { j.Plan = []byte{0xff, 0xfe} }, "not UTF-8"},
		{"big plan", func(j *kube.Job) { j.Plan = bytes.Repeat([]byte("a"), kube.MaxPlan+1) }, "at most 200 KiB"},
		{"no memory", func(j *kube.Job) { j.Memory = resource.Quantity{} }, "more than 0"},
		{"spread", func(j *kube.Job) { j.Spread = "sometimes" }, "spread"},
		{"no deadline", func(j *kube.Job) { j.Deadline = 0 }, "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := job(t)
			tt.edit(&in)
			var out bytes.Buffer
			err := kube.Write(&out, in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
			if out.Len() > 0 {
				t.Errorf("wrote %d bytes before refusing", out.Len())
			}
		})
	}
}

// TestPullPolicy guards the manifest's pull policy: a tag that moves
// (latest, or none) was left to a node's cache, so workers of one run
// could run different images.
func TestPullPolicy(t *testing.T) {
	t.Parallel()
	for image, want := range map[string]string{
		"kbench":                                   "Always",
		"kbench:latest":                            "Always",
		"registry.example.com:5000/kbench":         "Always", // a port, no tag
		"registry.example.com:5000/kbench:1.0":     "IfNotPresent",
		"registry.example.com/team/kbench:v2":      "IfNotPresent",
		"kbench@sha256:" + strings.Repeat("a", 64): "IfNotPresent",
	} {
		if got := kube.PullPolicy(image); got != want {
			t.Errorf("%s: %s, want %s", image, got, want)
		}
	}
}

// TestKubeCheckName holds Kubernetes' limits: a DNS label of at most 63
// characters whose pods' hostnames NAME-INDEX are too.
func TestKubeCheckName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		workers int
		ok      bool
	}{
		{"catch-up", 3, true},
		{strings.Repeat("a", 61), 10, true},  // hostname a...a-9: 63
		{strings.Repeat("a", 62), 10, false}, // a...a-9: 64
		{strings.Repeat("a", 60), 11, true},  // a...a-10: 63
		{strings.Repeat("a", 61), 11, false},
		{strings.Repeat("a", 61), 1, true}, // a...a-0
		{"Catch-Up", 1, false},
		{"catch_up", 1, false},
		{"-catch", 1, false},
		{"catch.up", 1, false},
		{"", 1, false},
	}
	for _, tt := range tests {
		err := kube.CheckName(tt.name, tt.workers)
		if (err == nil) != tt.ok {
			t.Errorf("CheckName(%q, %d) = %v, want ok %v", tt.name, tt.workers, err, tt.ok)
		}
	}
}

func TestKubeName(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 31, 15, 4, 5, 0, time.FixedZone("x", 3600))
	tests := []struct {
		plan    string
		workers int
		want    string
	}{
		{"catch-up", 3, "catch-up-20260131-140405"},
		{"Record_Size Sweep!", 3, "record-size-sweep-20260131-140405"},
		{"---", 3, "kbench-20260131-140405"},
		{strings.Repeat("long-", 20), 1000, ""},
	}
	for _, tt := range tests {
		got := kube.Name(tt.plan, now, tt.workers)
		if tt.want != "" && got != tt.want {
			t.Errorf("Name(%q) = %q, want %q", tt.plan, got, tt.want)
		}
		if err := kube.CheckName(got, tt.workers); err != nil {
			t.Errorf("Name(%q, %d workers) = %q: %v", tt.plan, tt.workers, got, err)
		}
	}
}

func TestKubeDeadline(t *testing.T) {
	t.Parallel()
	// 2 × 1m measuring + 1 run × 1m + 15m.
	if got := kube.Deadline(time.Minute, 1); got != 18*time.Minute {
		t.Errorf("Deadline(1m, 1) = %s, want 18m", got)
	}
	if got := kube.Deadline(10*time.Second, 1); got != 17*time.Minute {
		t.Errorf("Deadline(10s, 1) = %s, want 17m (rounded up)", got)
	}
}
