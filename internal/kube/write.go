package kube

import (
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Write checks j and writes its objects as one multi-document YAML
// manifest for kubectl apply -f: the ConfigMap, then the Job (a pod's
// volume names the ConfigMap, so it goes first).
func Write(w io.Writer, j Job) error {
	if j.Spread == "" {
		j.Spread = Preferred
	}
	if err := j.check(); err != nil {
		return err
	}
	cm, err := yaml.Marshal(j.ConfigMap())
	if err != nil {
		return fmt.Errorf("marshal the ConfigMap: %w", err)
	}
	job, err := yaml.Marshal(j.BatchJob())
	if err != nil {
		return fmt.Errorf("marshal the Job: %w", err)
	}
	_, err = fmt.Fprintf(w, "# The plan, mounted read-only at %s in every worker.\n%s---\n"+
		"# %d kbench worker(s), one a pod (Indexed Job: the index is the worker's). One failed\n"+
		"# worker fails the run (backoffLimitPerIndex and maxFailedIndexes 0, Kubernetes 1.33+).\n"+
		"# The run id is the Job's name: kbench collect %s --bootstrap-server HOST:PORT\n%s",
		PlanDir, cm, j.Workers, j.Name, job)
	return err
}
