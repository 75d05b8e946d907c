// Package kube builds the Kubernetes object that runs one kbench plan as a
// distributed run: an Indexed Job whose pods are its workers, carrying the
// plan itself. Learn Job (what the run needs) and Write (the manifest)
// first; Name and Deadline give the defaults kbench derives.
//
// The plan travels inside the Job, as an annotation of its pod template
// that a downwardAPI volume gives each pod as the file PlanPath. A
// ConfigMap beside the Job outlived it: the Job's TTL deletes the Job and
// its pods, not a ConfigMap, and an owner reference needs the Job's UID,
// which exists only once the API server has created it (so a manifest
// cannot carry it). One object is deleted whole, by its TTL or by kubectl
// delete.
//
// The objects are k8s.io/api's types marshalled with sigs.k8s.io/yaml, so
// a field name cannot drift from what the API server accepts.
package kube

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Spread says how the scheduler keeps workers on different nodes.
type Spread string

// The spreads.
const (
	// Preferred asks for different nodes and takes a shared one when
	// there are fewer nodes than workers.
	Preferred Spread = "preferred"
	// Required insists: a worker with no node of its own stays pending.
	Required Spread = "required"
)

// Spreads are the accepted spreads, Preferred (the default) first.
var Spreads = []string{string(Preferred), string(Required)}

// Limits that Kubernetes sets.
const (
	// MaxName is the longest Job name: the controller puts it in the
	// pods' label batch.kubernetes.io/job-name, a label value of at most
	// 63 characters.
	MaxName = validation.DNS1123LabelMaxLength
	// MaxWorkers bounds an Indexed Job's parallelism (and its
	// completions with backoffLimitPerIndex).
	MaxWorkers = 100_000
	// MaxPlan bounds the plan's text. An object's annotations hold at
	// most 256 KiB, and kubectl apply copies the whole Job (the plan
	// included) into its last-applied-configuration annotation: 200 KiB
	// leaves room for the rest of the Job.
	MaxPlan = 200 << 10
	// MaxWorkDir bounds each pod's working directory (an emptyDir): it
	// holds worker 0's results folder, a few MB per hour of measuring; a
	// pod past it is evicted instead of filling its node's disk.
	MaxWorkDir = "1Gi"
)

// Where the pods find things.
const (
	PlanDir  = "/etc/kbench"     // the plan's downwardAPI volume, read-only
	PlanKey  = "plan.yaml"       // the plan's file name
	WorkDir  = "/var/lib/kbench" // an emptyDir, the worker's working directory
	PlanPath = PlanDir + "/" + PlanKey
	// PlanAnnotation is the pod template's annotation holding the plan's
	// text, which the volume projects as PlanPath.
	PlanAnnotation = "kbench/plan.yaml"
)

// RunIDEnv is the variable the workers read their run id from; the Job
// sets it from its own name, so every pod of one Job agrees.
const RunIDEnv = "KBENCH_RUN_ID"

// Job is one distributed run as Kubernetes objects: what Write needs.
type Job struct {
	// Name names the Job; the workers take it as the run id (kbench
	// collect NAME). Check it with CheckName.
	Name string
	// Namespace, when set, is the Job's metadata.namespace; "" leaves it
	// out (kubectl's current namespace).
	Namespace string
	// Image is the kbench image the pods run (its entrypoint is kbench).
	// A mutable tag (latest, or none) is pulled on every pod start
	// (PullPolicy).
	Image string
	// Workers is the number of pods, each one worker (1 to MaxWorkers).
	Workers int
	// Plan is the plan file's text, byte for byte.
	Plan []byte
	// Sets are --set PATH=VALUE overrides every worker applies.
	Sets []string
	// CPU and Memory are each pod's requests, and its limits.
	CPU, Memory resource.Quantity
	// Spread keeps the workers on different nodes (default Preferred).
	Spread Spread
	// Deadline bounds the Job's run (activeDeadlineSeconds): Kubernetes
	// stops every pod when it passes. See Deadline.
	Deadline time.Duration
	// ServiceAccount, when set, is the pods' service account (for fault
	// commands that call kubectl); "" mounts no API token.
	ServiceAccount string
}

// check returns every problem of j, each naming the field.
func (j Job) check() error {
	var errs []error
	if err := CheckName(j.Name, j.Workers); err != nil {
		errs = append(errs, fmt.Errorf("name %q: %w", j.Name, err))
	}
	if j.Namespace != "" {
		if err := CheckNamespace(j.Namespace); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", j.Namespace, err))
		}
	}
	if strings.TrimSpace(j.Image) == "" || strings.ContainsAny(j.Image, " \t\n") {
		errs = append(errs, fmt.Errorf("image %q: give an image reference such as registry.example.com/kbench:1.0", j.Image))
	}
	if j.Workers < 1 || j.Workers > MaxWorkers {
		errs = append(errs, fmt.Errorf("workers %d: give 1 to %d", j.Workers, MaxWorkers))
	}
	if err := CheckPlan(j.Plan); err != nil {
		errs = append(errs, fmt.Errorf("plan: %w", err))
	}
	if j.CPU.Sign() <= 0 || j.Memory.Sign() <= 0 {
		errs = append(errs, fmt.Errorf("cpu %s, memory %s: both must be more than 0", j.CPU.String(), j.Memory.String()))
	}
	if j.Spread != "" && j.Spread != Preferred && j.Spread != Required {
		errs = append(errs, fmt.Errorf("spread %q: give %s", j.Spread, strings.Join(Spreads, " or ")))
	}
	if j.Deadline < time.Second {
		errs = append(errs, fmt.Errorf("deadline %s: give at least 1s", j.Deadline))
	}
	if j.ServiceAccount != "" {
		if err := CheckServiceAccount(j.ServiceAccount); err != nil {
			errs = append(errs, fmt.Errorf("service account %q: %w", j.ServiceAccount, err))
		}
	}
	return errors.Join(errs...)
}

// CheckPlan checks that a plan's text fits the Job's annotation: UTF-8
// text of at most MaxPlan bytes.
func CheckPlan(text []byte) error {
	if len(text) > MaxPlan {
		return fmt.Errorf("%d bytes; the Job carries a plan of at most %d KiB (Kubernetes holds 256 KiB of annotations an object, and kubectl apply copies the Job into one)", len(text), MaxPlan>>10)
	}
	if !utf8.Valid(text) {
		return errors.New("not UTF-8 text")
	}
	return nil
}

// MaxNameFor is the longest Job name for that many workers. The name is
// at most MaxName characters, and an Indexed Job's pods have the hostname
// NAME-INDEX, a DNS label of at most 63 characters: the highest index's
// digits and the dash come off.
func MaxNameFor(workers int) int {
	return min(MaxName, validation.DNS1123LabelMaxLength-1-len(fmt.Sprint(max(workers-1, 0))))
}

// errLabel words what a DNS-1123 label is.
var errLabel = errors.New("not a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters")

// CheckName checks a Job name for that many workers: a DNS-1123 label
// (lower-case letters, digits and '-', starting and ending with a letter
// or digit) of at most MaxNameFor(workers) characters.
func CheckName(name string, workers int) error {
	if len(validation.IsDNS1123Label(name)) > 0 && len(name) <= MaxName {
		return errLabel
	}
	if limit := MaxNameFor(workers); len(name) > limit {
		return fmt.Errorf("%d characters; with %d worker(s) a Job name has at most %d: the pods' hostnames are NAME-INDEX, at most 63 characters", len(name), workers, limit)
	}
	return nil
}

// CheckNamespace checks a namespace name: a DNS-1123 label.
func CheckNamespace(ns string) error {
	if len(validation.IsDNS1123Label(ns)) > 0 {
		return errLabel
	}
	return nil
}

// CheckServiceAccount checks a service account name: a DNS-1123
// subdomain (a label, or labels joined by dots, at most 253 characters).
func CheckServiceAccount(sa string) error {
	if len(validation.IsDNS1123Subdomain(sa)) > 0 {
		return errors.New("not a DNS subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters")
	}
	return nil
}

// Name is the default Job name: the plan's name as a DNS label (lower
// case; other characters become '-'), shortened to fit, then the UTC time
// to the second, such as catch-up-20260131-150405. A plan name with no
// letter or digit gives "kbench".
func Name(planName string, now time.Time, workers int) string {
	stamp := now.UTC().Format("20060102-150405")
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(planName) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	base := strings.TrimRight(b.String(), "-")
	if base == "" {
		base = "kbench"
	}
	if room := MaxNameFor(workers) - len(stamp) - 1; len(base) > room {
		base = strings.TrimRight(base[:room], "-")
	}
	return base + "-" + stamp
}

// Deadline is the default bound on the Job's run for a plan that measures
// for measuring (its --dry-run estimate) over runs scenario repeats:
// twice the measuring, a minute a run (topics made, records read back)
// and 15 minutes for the pods to be scheduled, pull the image and meet,
// rounded up to the minute. Generous on purpose: a Job stopped at its
// deadline loses the run.
func Deadline(measuring time.Duration, runs int) time.Duration {
	d := 2*measuring + time.Duration(runs)*time.Minute + 15*time.Minute
	return (d + time.Minute - 1).Truncate(time.Minute)
}

// PullPolicy is the pods' imagePullPolicy for image: Always for a tag
// that moves (latest, or no tag, which means latest), so that every
// worker of a run runs the image pushed last and not whatever a node
// cached; IfNotPresent for another tag or a digest. Kubernetes defaults
// to the same; the manifest says it.
func PullPolicy(image string) string {
	if strings.Contains(image, "@") {
		return "IfNotPresent" // a digest never moves
	}
	name := image[strings.LastIndexByte(image, '/')+1:] // a registry's port has a ':' too
	_, tag, tagged := strings.Cut(name, ":")
	if !tagged || tag == "latest" {
		return "Always"
	}
	return "IfNotPresent"
}
