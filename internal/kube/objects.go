package kube

import (
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// nonroot is the user and group of the distroless :nonroot image
	// (the Dockerfile's); set on the pod so that runAsNonRoot holds for
	// any image.
	nonroot = 65532
	// keepFinished is how long a finished Job and its pods (their logs)
	// stay before Kubernetes deletes them: a day.
	keepFinished = 24 * 60 * 60
	// memLimitShare is GOMEMLIMIT's share of the memory limit: the Go
	// collector works harder near it instead of the pod being killed
	// (OOMKilled fails the run).
	memLimitShare = 0.9
)

// labels are the objects' own labels.
func (j Job) labels() map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":     "kbench",
		"app.kubernetes.io/instance": j.Name,
	}
}

func (j Job) meta() metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: j.Name, Namespace: j.Namespace, Labels: j.labels()}
}

// Args are the worker's command line after the image's entrypoint
// (kbench). Kubernetes expands $(VAR) in args, and $$ to $: every $ is
// doubled so that a --set value reaches kbench as written.
func (j Job) Args() []string {
	args := []string{"run", PlanPath, "--workers", strconv.Itoa(j.Workers), "--keep-control"}
	for _, s := range j.Sets {
		args = append(args, "--set", strings.ReplaceAll(s, "$", "$$"))
	}
	return args
}

// BatchJob is the Indexed Job of the workers. One failed worker fails the
// run: each index may fail once and no index may fail (backoffLimitPerIndex
// 0 and maxFailedIndexes 0, stable since Kubernetes 1.33, chosen over
// backoffLimit 0 with a podFailurePolicy because it says exactly that),
// and Kubernetes then stops the other pods. A worker that started again
// could not rejoin the run.
func (j Job) BatchJob() *batchv1.Job {
	n := int32(j.Workers)
	resources := corev1.ResourceList{corev1.ResourceCPU: j.CPU, corev1.ResourceMemory: j.Memory}
	pod := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Affinity:      &corev1.Affinity{PodAntiAffinity: j.antiAffinity()},
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr(true),
			RunAsUser:      ptr(int64(nonroot)),
			RunAsGroup:     ptr(int64(nonroot)),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name:            "kbench",
			Image:           j.Image,
			ImagePullPolicy: corev1.PullPolicy(PullPolicy(j.Image)),
			Args:            j.Args(),
			WorkingDir:      WorkDir,
			Env: []corev1.EnvVar{
				{Name: RunIDEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
					FieldPath: "metadata.labels['" + batchv1.JobNameLabel + "']",
				}}},
				{Name: "GOMEMLIMIT", Value: strconv.FormatInt(int64(float64(j.Memory.Value())*memLimitShare), 10)},
			},
			Resources: corev1.ResourceRequirements{Requests: resources, Limits: resources.DeepCopy()},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "plan", MountPath: PlanDir, ReadOnly: true},
				{Name: "work", MountPath: WorkDir},
			},
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
		}},
		Volumes: []corev1.Volume{
			{Name: "plan", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{{Path: PlanKey, FieldRef: &corev1.ObjectFieldSelector{
					FieldPath: "metadata.annotations['" + PlanAnnotation + "']",
				}}},
			}}},
			{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				SizeLimit: ptr(resource.MustParse(MaxWorkDir)),
			}}},
		},
	}
	if j.ServiceAccount != "" {
		pod.ServiceAccountName = j.ServiceAccount
	} else {
		pod.AutomountServiceAccountToken = ptr(false) // the workers talk to Kafka, not to Kubernetes
	}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: j.meta(),
		Spec: batchv1.JobSpec{
			CompletionMode:          ptr(batchv1.IndexedCompletion),
			Completions:             ptr(n),
			Parallelism:             ptr(n),
			BackoffLimitPerIndex:    ptr(int32(0)),
			MaxFailedIndexes:        ptr(int32(0)),
			ActiveDeadlineSeconds:   ptr(int64((j.Deadline + time.Second - 1) / time.Second)),
			TTLSecondsAfterFinished: ptr(int32(keepFinished)),
			Template: corev1.PodTemplateSpec{
				// The plan, byte for byte: it lives and dies with the Job.
				ObjectMeta: metav1.ObjectMeta{Labels: j.labels(), Annotations: map[string]string{PlanAnnotation: string(j.Plan)}},
				Spec:       pod,
			},
		},
	}
}

// antiAffinity keeps the Job's pods off each other's nodes.
func (j Job) antiAffinity() *corev1.PodAntiAffinity {
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.JobNameLabel: j.Name}},
		TopologyKey:   corev1.LabelHostname,
	}
	if j.Spread == Required {
		return &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}
	}
	return &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
		{Weight: 100, PodAffinityTerm: term},
	}}
}

func ptr[T any](v T) *T { return &v }
