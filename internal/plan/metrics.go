package plan

import (
	"encoding/pem"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kbench/kbench/internal/infile"
)

// MetricsEndpoint is one of a remote cluster's Prometheus text-format
// endpoints (cluster.metrics), scraped through each repeat for the
// brokers' own Kafka metrics.
type MetricsEndpoint struct {
	URL string
	// CAFile is a PEM file of the certificates that sign an https
	// endpoint's (none: the system's); Insecure skips the check.
	CAFile   string
	Insecure bool
	// Username and Password are basic auth (Password never written out).
	Username, Password string
	// At is where the plan gives it ("plan.yaml:4:7"), for errors found
	// at run time (an unreadable CA file).
	At string
}

var metricsFields = []string{"url", "ca_file", "insecure", "username", "password"}

// metrics is cluster.metrics: a list of endpoints, each a URL or a
// mapping of url, ca_file, insecure, username and password.
func (c *collector) metrics(n *yaml.Node) []MetricsEndpoint {
	const path = "cluster.metrics"
	example := "a list of Prometheus endpoints, such as [http://broker-1:9404/metrics] or [{url: https://broker-1:9404/metrics, ca_file: ca.pem}]"
	if n.Kind != yaml.SequenceNode {
		c.addf(n, path, "is %s; write %s", kindName(n), example)
		return nil
	}
	if len(n.Content) == 0 {
		c.addf(n, path, "is an empty list; write %s, or leave metrics out", example)
		return nil
	}
	var out []MetricsEndpoint
	seen := map[string]bool{}
	for i, item := range n.Content {
		p := path + "[" + strconv.Itoa(i) + "]"
		e := MetricsEndpoint{At: strings.TrimSuffix(c.problem(item, p, "").String(), ": ")}
		var urlNode *yaml.Node
		switch item.Kind {
		case yaml.MappingNode:
			c.fields(item, p, metricsFields, func(key string, v *yaml.Node) {
				switch key {
				case "url":
					e.URL, urlNode = c.text(v, p+".url"), v
				case "ca_file":
					e.CAFile = c.caFile(v, p+".ca_file")
				case "insecure":
					e.Insecure = c.boolean(v, p+".insecure")
				case "username":
					e.Username = c.text(v, p+".username")
				case "password":
					e.Password = c.text(v, p+".password")
				}
			})
			if urlNode == nil {
				c.addf(item, p, "has no url; give the endpoint's address, such as {url: https://broker-1:9404/metrics}")
				continue
			}
		case yaml.ScalarNode:
			e.URL, urlNode = c.text(item, p), item
		default:
			c.addf(item, p, "is %s; write an endpoint's URL, or a mapping of %s", kindName(item), strings.Join(metricsFields, ", "))
			continue
		}
		if !c.metricsURL(urlNode, p, e) {
			continue
		}
		if seen[e.URL] {
			c.addf(urlNode, p, "%s is given twice; keep one", e.URL)
			continue
		}
		seen[e.URL] = true
		out = append(out, e)
	}
	return out
}

// caFile is a PEM file of CA certificates, relative to the plan's
// folder, read now so that a missing or wrong file is said at its place.
func (c *collector) caFile(n *yaml.Node, path string) string {
	name := c.text(n, path)
	if name == "" {
		return ""
	}
	full := name
	if !filepath.IsAbs(full) {
		full = filepath.Join(c.dir, full)
	}
	data, err := infile.Read(full, maxCAFile, "a CA file")
	if err != nil {
		c.addf(n, path, "%v", err)
		return full
	}
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			c.addf(n, path, "%s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", name)
			return full
		} else if b.Type == "CERTIFICATE" {
			return full
		}
	}
}

// maxCAFile bounds a CA file: a bundle of every public CA is about 220 KB.
const maxCAFile = 4 << 20

// metricsURL checks an endpoint's URL and the settings that go with it.
func (c *collector) metricsURL(n *yaml.Node, path string, e MetricsEndpoint) bool {
	u, err := url.Parse(e.URL)
	switch {
	case e.URL == "":
		c.addf(n, path, "is empty; give the endpoint's URL, such as http://broker-1:9404/metrics")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		c.addf(n, path, "%q is not an http or https URL with a host, such as http://broker-1:9404/metrics", redactURLUser(e.URL))
	case u.User != nil:
		c.addf(n, path, "%s carries a user in the URL; give username and password as fields of their own ({url: ..., username: ..., password: ...}), which kbench never writes out", redactURLUser(e.URL))
	case u.Scheme == "http" && (e.CAFile != "" || e.Insecure):
		c.addf(n, path, "%s is plain http: ca_file and insecure apply to https endpoints only", e.URL)
	case e.CAFile != "" && e.Insecure:
		c.addf(n, path, "give ca_file (check the endpoint's certificate against it) or insecure (no check), not both")
	case e.Password != "" && e.Username == "":
		c.addf(n, path, "has a password and no username; basic auth needs both")
	default:
		return true
	}
	return false
}
