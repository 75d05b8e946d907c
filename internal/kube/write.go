package kube

import (
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Write checks j and writes its Job as a YAML manifest for kubectl apply
// -f.
func Write(w io.Writer, j Job) error {
	if j.Spread == "" {
		j.Spread = Preferred
	}
	if err := j.check(); err != nil {
		return err
	}
	job, err := yaml.Marshal(j.BatchJob())
	if err != nil {
		return fmt.Errorf("marshal the Job: %w", err)
	}
	_, err = fmt.Fprintf(w, "# %d kbench worker(s), one a pod (Indexed Job: the index is the worker's). One failed\n"+
		"# worker fails the run (backoffLimitPerIndex and maxFailedIndexes 0, Kubernetes 1.33+).\n"+
		"# The plan is the pod template's annotation %s, mounted read-only at %s: the\n"+
		"# Job holds everything, and its TTL (or kubectl delete) removes it whole.\n"+
		"# The run id is the Job's name: kbench collect %s --bootstrap-server HOST:PORT\n%s",
		j.Workers, PlanAnnotation, PlanPath, j.Name, job)
	return err
}
