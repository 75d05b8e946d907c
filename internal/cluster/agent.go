package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// AgentVersion is the Prometheus JMX exporter's java agent each local
// broker runs (io.prometheus.jmx:jmx_prometheus_javaagent), fetched from
// Maven Central with the Kafka jars and cached beside them.
const AgentVersion = "1.0.1"

// agentJar is the agent's file name in its cache directory.
func agentJar() string { return "jmx_prometheus_javaagent-" + AgentVersion + ".jar" }

// fetchAgent resolves the agent jar once into <cache>/jmx-exporter/<version>;
// later calls find it there and run offline.
func fetchAgent(ctx context.Context, cfg config) (string, error) {
	return fetchJar(ctx, cfg, jarArtifact{
		cache: "jmx-exporter", version: AgentVersion, file: agentJar(),
		coords: "io.prometheus.jmx:jmx_prometheus_javaagent:" + AgentVersion + ":jar",
		what:   "the JMX exporter agent " + AgentVersion, purpose: "the brokers' metrics agent",
		says: "the Prometheus JMX exporter agent " + AgentVersion,
	})
}

// jarArtifact is one jar fetched with mvn beside the Kafka jars.
type jarArtifact struct {
	cache, version string // its folder is <cache dir>/<cache>/<version>
	file           string // the jar's file name there
	coords         string // groupId:artifactId:version:type[:classifier]
	what           string // for errors: "fetch <what>"
	purpose        string // for a missing mvn: "it fetches <purpose> once"
	says           string // for the progress: "fetching <says> from Maven Central"
}

// fetchJar resolves a into its cache folder once, under a lock, through a
// temporary folder renamed into place when complete; later calls find it
// there and run offline.
func fetchJar(ctx context.Context, cfg config, a jarArtifact) (string, error) {
	root := filepath.Join(cfg.cacheDir, a.cache)
	dir := filepath.Join(root, a.version)
	jar := filepath.Join(dir, a.file)
	if isComplete(dir) {
		return jar, nil
	}
	what := "fetch " + a.what
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	unlock, err := lockFile(ctx, filepath.Join(root, a.version+".lock"))
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	defer unlock()
	if isComplete(dir) {
		return jar, nil
	}
	mvn, err := exec.LookPath(cfg.maven)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH: install Apache Maven 3.6 or newer (it fetches %s once): %w", cfg.maven, a.purpose, err)
	}
	fmt.Fprintf(cfg.log, "fetching %s from Maven Central with mvn (first run only)\n", a.says)
	tmp, err := os.MkdirTemp(root, ".fetch-"+a.version+"-")
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	defer os.RemoveAll(tmp)
	pom := filepath.Join(tmp, "pom.xml")
	if err := os.WriteFile(pom, []byte(registryPom), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", pom, err)
	}
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-Dstyle.color=never", "-f", pom, "dependency:copy",
		"-Dartifact="+a.coords, "-DoutputDirectory="+tmp)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s with mvn: %w", what, ctx.Err())
		}
		return "", fmt.Errorf("%s with mvn (check network access to Maven Central, or proxy settings in ~/.m2/settings.xml): %w\n%s",
			what, err, tailLines(ansiRE.ReplaceAllString(string(out), ""), 30))
	}
	if _, err := os.Stat(filepath.Join(tmp, a.file)); err != nil {
		return "", fmt.Errorf("%s with mvn: mvn succeeded but %s is missing", what, a.file)
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("%s: remove stale %s: %w", what, dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return jar, nil
}

// agentConfigPath is the exporter's rules, one file per cluster.
func (c *Cluster) agentConfigPath() string { return filepath.Join(c.Dir, "jmx-exporter.yaml") }

// agentArgs are the JVM options that run the exporter on the broker's
// metrics port (none for a cluster started before kbench ran it).
func (c *Cluster) agentArgs(b Broker) []string {
	if c.Agent == "" || b.MetricsPort == 0 {
		return nil
	}
	return []string{"-javaagent:" + c.Agent + "=127.0.0.1:" + strconv.Itoa(b.MetricsPort) + ":" + c.agentConfigPath()}
}

// MetricsURL is the broker's Prometheus endpoint ("" without one).
func (b Broker) MetricsURL() string {
	if b.MetricsPort == 0 {
		return ""
	}
	return "http://127.0.0.1:" + strconv.Itoa(b.MetricsPort) + "/metrics"
}

// writeAgentConfig writes the exporter's rules.
func (c *Cluster) writeAgentConfig() error {
	if c.Agent == "" {
		return nil
	}
	cfg := agentConfig
	if c.Tiered != nil {
		cfg = strings.Replace(cfg, "rules:\n", tieredAgentNames+"rules:\n"+tieredAgentRule, 1)
	}
	if err := os.WriteFile(c.agentConfigPath(), []byte(cfg), 0o644); err != nil {
		return fmt.Errorf("write the metrics agent's config: %w", err)
	}
	return nil
}

// agentConfig exports only the MBeans kbench reads, named as the JMX
// exporter's own Kafka example (example_configs/kafka-2_0_0.yml) names
// them, so a remote cluster scraped with that config gives the same
// figures: meters' counts as <domain>_<type>_<name>_total (PerSec dropped)
// or _count, gauges bare, histograms' Mean and 99th percentile (the mean is
// over the broker's life: with the count it gives a repeat's exact mean).
// includeObjectNames keeps each scrape to these few MBeans.
const agentConfig = `# kbench: the brokers' metrics it reads (internal/brokermetrics).
lowercaseOutputName: true
includeObjectNames:
  - "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec"
  - "kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec"
  - "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec"
  - "kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent"
  - "kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent"
  - "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce"
  - "kafka.network:type=RequestMetrics,name=RequestQueueTimeMs,request=Produce"
  - "kafka.network:type=RequestMetrics,name=LocalTimeMs,request=Produce"
  - "kafka.network:type=RequestMetrics,name=RemoteTimeMs,request=Produce"
  - "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchConsumer"
  - "kafka.network:type=RequestMetrics,name=RequestQueueTimeMs,request=FetchConsumer"
  - "kafka.network:type=RequestMetrics,name=LocalTimeMs,request=FetchConsumer"
  - "kafka.network:type=RequestMetrics,name=RemoteTimeMs,request=FetchConsumer"
  - "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"
  - "kafka.server:type=ReplicaManager,name=IsrShrinksPerSec"
  - "kafka.server:type=ReplicaManager,name=IsrExpandsPerSec"
  - "kafka.controller:type=KafkaController,name=OfflinePartitionsCount"
rules:
  - pattern: kafka.(\w+)<type=(.+), name=(.+)PerSec\w*><>Count
    name: kafka_$1_$2_$3_total
    type: COUNTER
  - pattern: kafka.(\w+)<type=(.+), name=(.+)><>Value
    name: kafka_$1_$2_$3
    type: GAUGE
  - pattern: kafka.network<type=RequestMetrics, name=(\w+)TimeMs, request=(\w+)><>Count
    name: kafka_network_requestmetrics_$1timems_count
    type: COUNTER
    labels:
      request: "$2"
  - pattern: kafka.network<type=RequestMetrics, name=(\w+)TimeMs, request=(\w+)><>Mean
    name: kafka_network_requestmetrics_$1timems_mean
    type: GAUGE
    labels:
      request: "$2"
  - pattern: kafka.network<type=RequestMetrics, name=(\w+)TimeMs, request=(\w+)><>99thPercentile
    name: kafka_network_requestmetrics_$1timems
    type: GAUGE
    labels:
      request: "$2"
      quantile: "0.99"
  - pattern: kafka.(\w+)<type=(.+), name=(.+)><>Count
    name: kafka_$1_$2_$3_count
    type: COUNTER
`

// tieredAgentNames and tieredAgentRule add, on a tiered-storage cluster,
// remote storage's bytes (read from the remote tier, copied to it) and the
// bytes sent to consumers, for the broker and per topic (an ObjectName
// pattern's ",*" takes both), named as the JMX exporter's Kafka example
// names per-topic series: the broker's name with a topic label.
const tieredAgentNames = `  - "kafka.server:type=BrokerTopicMetrics,name=RemoteFetchBytesPerSec,*"
  - "kafka.server:type=BrokerTopicMetrics,name=RemoteCopyBytesPerSec,*"
  - "kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec,*"
`

const tieredAgentRule = `  - pattern: kafka.server<type=BrokerTopicMetrics, name=(BytesOut|RemoteFetchBytes|RemoteCopyBytes)PerSec, topic=(.+)><>Count
    name: kafka_server_brokertopicmetrics_$1_total
    type: COUNTER
    labels:
      topic: "$2"
`

// MetricsURLs are the brokers' Prometheus endpoints by node id (none for
// a cluster started before kbench ran the agent).
func (c *Cluster) MetricsURLs() map[int]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[int]string{}
	for _, b := range c.Brokers {
		if c.Agent != "" && b.MetricsPort > 0 {
			out[b.ID] = b.MetricsURL()
		}
	}
	return out
}
