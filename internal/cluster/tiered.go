package cluster

import (
	"context"
	"strconv"
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
	return fetchJar(ctx, cfg, jarArtifact{
		cache: "kafka-storage-test", version: cfg.version, file: tieredJar(cfg.version),
		coords: "org.apache.kafka:kafka-storage:" + cfg.version + ":jar:test",
		what:   "the kafka-storage test jar " + cfg.version, purpose: "the tiered-storage test jar",
		says: "Apache Kafka " + cfg.version + "'s kafka-storage test jar (LocalTieredStorage)",
	})
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
