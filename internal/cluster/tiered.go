package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// TieredStorageClass is the remote storage manager a tiered-storage
// cluster's brokers run: Apache Kafka's own LocalTieredStorage, from the
// kafka-storage test jar, which keeps the remote tier in a folder. Every
// broker of the cluster shares that folder, as brokers share an object
// store, so a new leader reads what an earlier one copied.
const TieredStorageClass = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage"

// Tiered is a tiered-storage cluster's remote tier (WithTieredStorage).
type Tiered struct {
	// Jar is the kafka-storage test jar holding TieredStorageClass, given
	// to the brokers as the storage manager's own class path.
	Jar string `json:"jar"`
	// Dir is the remote tier's folder, shared by the brokers.
	Dir string `json:"dir"`
}

// WithTieredStorage starts the brokers with remote log storage enabled
// (KIP-405) through TieredStorageClass, the remote tier a folder of the
// cluster's (remote-storage/). A topic's segments move there once it has
// remote.storage.enable=true; its local.retention.ms or
// local.retention.bytes say how much stays in local segments. The remote
// log manager runs every second and local retention is checked every
// second, so closed segments move within seconds.
func WithTieredStorage(on bool) Opt { return func(c *config) { c.tiered = on } }

// tieredJar is the test jar's file name.
func tieredJar(version string) string { return "kafka-storage-" + version + "-test.jar" }

// fetchTieredJar resolves org.apache.kafka:kafka-storage:<version>:test
// once into <cache>/kafka-storage-test/<version>, with the other jars (so
// `cluster classpath`, which CI runs first, fetches it); later calls find
// it there and run offline.
func fetchTieredJar(ctx context.Context, cfg config) (string, error) {
	root := filepath.Join(cfg.cacheDir, "kafka-storage-test")
	dir := filepath.Join(root, cfg.version)
	jar := filepath.Join(dir, tieredJar(cfg.version))
	if isComplete(dir) {
		return jar, nil
	}
	what := "fetch the kafka-storage test jar " + cfg.version
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	unlock, err := lockFile(ctx, filepath.Join(root, cfg.version+".lock"))
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	defer unlock()
	if isComplete(dir) {
		return jar, nil
	}
	mvn, err := exec.LookPath(cfg.maven)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH: install Apache Maven 3.6 or newer (it fetches the tiered-storage test jar once): %w", cfg.maven, err)
	}
	fmt.Fprintf(cfg.log, "fetching Apache Kafka %s's kafka-storage test jar (LocalTieredStorage) from Maven Central with mvn (first run only)\n", cfg.version)
	tmp, err := os.MkdirTemp(root, ".fetch-"+cfg.version+"-")
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	defer os.RemoveAll(tmp)
	pom := filepath.Join(tmp, "pom.xml")
	if err := os.WriteFile(pom, []byte(registryPom), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", pom, err)
	}
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-Dstyle.color=never", "-f", pom, "dependency:copy",
		"-Dartifact=org.apache.kafka:kafka-storage:"+cfg.version+":jar:test", "-DoutputDirectory="+tmp)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s with mvn: %w", what, ctx.Err())
		}
		return "", fmt.Errorf("%s with mvn (check network access to Maven Central, or proxy settings in ~/.m2/settings.xml): %w\n%s",
			what, err, tailLines(ansiRE.ReplaceAllString(string(out), ""), 30))
	}
	if _, err := os.Stat(filepath.Join(tmp, tieredJar(cfg.version))); err != nil {
		return "", fmt.Errorf("%s with mvn: mvn succeeded but %s is missing", what, tieredJar(cfg.version))
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

// tieredProps are the broker properties of remote log storage: the storage
// manager and its folder, the metadata manager on the brokers' own
// listener with its topic replicated as widely as the cluster allows (and
// a few partitions: the default 50 slow a small cluster's start), and the
// tasks that copy segments and drop local ones run every second, the first
// a second after the broker starts (Kafka's defaults are 30 s, 5 min and
// 30 s: a backlog written just after `up` stayed local for half a minute).
func (t *Tiered) props(listener string, n int) map[string]string {
	return map[string]string{
		"remote.log.storage.system.enable":                         "true",
		"remote.log.storage.manager.class.name":                    TieredStorageClass,
		"remote.log.storage.manager.class.path":                    t.Jar,
		"rsm.config.dir":                                           t.Dir,
		"remote.log.metadata.manager.listener.name":                listener,
		"rlmm.config.remote.log.metadata.topic.replication.factor": strconv.Itoa(min(n, 3)),
		"rlmm.config.remote.log.metadata.topic.min.isr":            strconv.Itoa(min(n, 2)),
		"rlmm.config.remote.log.metadata.topic.num.partitions":     "5",
		"remote.log.manager.task.interval.ms":                      "1000",
		"log.retention.check.interval.ms":                          "1000",
		"log.initial.task.delay.ms":                                "1000",
	}
}
