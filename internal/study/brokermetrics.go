package study

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"sort"

	"github.com/kbench/kbench/internal/brokermetrics"
	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/plan"
	"github.com/kbench/kbench/internal/result"
)

// localMetricsTargets are a local cluster's brokers' agents, read from
// its state at each repeat.
func localMetricsTargets(urls func() map[int]string) func() []brokermetrics.Target {
	return func() []brokermetrics.Target {
		m := urls()
		ids := make([]int, 0, len(m))
		for id := range m {
			ids = append(ids, id)
		}
		sort.Ints(ids)
		out := make([]brokermetrics.Target, len(ids))
		for i, id := range ids {
			out[i] = brokermetrics.Target{ID: id, URL: m[id]}
		}
		return out
	}
}

// remoteMetricsTargets are the plan's cluster.metrics endpoints, each
// with its own client (its CA, or no check) and basic auth.
func remoteMetricsTargets(endpoints []plan.MetricsEndpoint) (func() []brokermetrics.Target, error) {
	targets := make([]brokermetrics.Target, 0, len(endpoints))
	for _, e := range endpoints {
		t := brokermetrics.Target{Endpoint: e.URL, URL: e.URL, Username: e.Username, Password: e.Password}
		if e.CAFile != "" || e.Insecure {
			cfg := &tls.Config{InsecureSkipVerify: e.Insecure} //nolint:gosec // the plan's insecure: true asks for it
			if e.CAFile != "" {
				pem, err := infile.Read(e.CAFile, 1<<20, "a CA file")
				if err != nil {
					return nil, fmt.Errorf("%s: cluster.metrics ca_file: %w", e.At, err)
				}
				pool := x509.NewCertPool()
				if !pool.AppendCertsFromPEM(pem) {
					return nil, fmt.Errorf("%s: cluster.metrics ca_file %s: no PEM certificate in it", e.At, e.CAFile)
				}
				cfg.RootCAs = pool
			}
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.TLSClientConfig = cfg
			t.Client = &http.Client{Transport: tr}
		}
		targets = append(targets, t)
	}
	return func() []brokermetrics.Target { return targets }, nil
}

// withKafkaMetrics puts each scraped broker's metrics into its /proc
// entry (by id), or adds an entry: a remote endpoint, or a local broker
// /proc did not see.
func withKafkaMetrics(brokers, scraped []result.BrokerCost) []result.BrokerCost {
	for _, s := range scraped {
		found := false
		for i := range brokers {
			if s.Endpoint == "" && brokers[i].Endpoint == "" && brokers[i].ID == s.ID {
				brokers[i].Kafka, found = s.Kafka, true
				break
			}
		}
		if !found {
			brokers = append(brokers, s)
		}
	}
	return brokers
}
