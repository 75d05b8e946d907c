package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
	"time"
)

// Dist is a fetched Apache Kafka: every runtime jar in one directory.
type Dist struct {
	Version string
	Dir     string // <cache dir>/kafka/<version>
	// Agent is the Prometheus JMX exporter's java agent jar the brokers
	// run (<cache dir>/jmx-exporter/<AgentVersion>/).
	Agent string
	// TieredJar is the kafka-storage test jar holding LocalTieredStorage
	// (<cache dir>/kafka-storage-test/<version>/), for WithTieredStorage.
	TieredJar string
}

// Libs is the directory holding the jars.
func (d *Dist) Libs() string { return filepath.Join(d.Dir, "libs") }

// Classpath is the jars as a Java wildcard classpath, for `java -cp`.
func (d *Dist) Classpath() string { return filepath.Join(d.Libs(), "*") }

// completeMarker is written last, so a directory holding it is whole.
const completeMarker = ".complete"

// Fetch resolves the Kafka jars (broker, Java perf tools, a log4j2 binding),
// the brokers' metrics agent (AgentVersion) and the kafka-storage test jar
// (LocalTieredStorage, for WithTieredStorage) from Maven Central with
// mvn, once: later calls find them in the cache and
// run offline. It honours WithVersion, WithCacheDir, WithMaven and WithLog.
func Fetch(ctx context.Context, opts ...Opt) (*Dist, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return fetch(ctx, cfg)
}

func fetch(ctx context.Context, cfg config) (*Dist, error) {
	d, err := fetchKafka(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if d.Agent, err = fetchAgent(ctx, cfg); err != nil {
		return nil, err
	}
	if d.TieredJar, err = fetchTieredJar(ctx, cfg); err != nil {
		return nil, err
	}
	return d, nil
}

func fetchKafka(ctx context.Context, cfg config) (*Dist, error) {
	root := filepath.Join(cfg.cacheDir, "kafka")
	d := &Dist{Version: cfg.version, Dir: filepath.Join(root, cfg.version)}
	if isComplete(d.Dir) {
		return d, nil
	}
	unlock, err := lockFile(ctx, filepath.Join(root, cfg.version+".lock"))
	if err != nil {
		return nil, fmt.Errorf("fetch Kafka %s: %w", cfg.version, err)
	}
	defer unlock()
	if isComplete(d.Dir) { // another process fetched it while we waited
		return d, nil
	}
	mvn, err := exec.LookPath(cfg.maven)
	if err != nil {
		return nil, fmt.Errorf("%s not found on PATH: install Apache Maven 3.6 or newer (it fetches the Kafka jars once): %w", cfg.maven, err)
	}
	fmt.Fprintf(cfg.log, "fetching Apache Kafka %s jars from Maven Central with mvn (first run only)\n", cfg.version)
	start := time.Now()
	// Fetch into a temporary directory renamed into place when whole, so an
	// interrupted fetch never looks complete.
	tmp, err := os.MkdirTemp(root, ".fetch-"+cfg.version+"-")
	if err != nil {
		return nil, fmt.Errorf("fetch Kafka %s: %w", cfg.version, err)
	}
	defer os.RemoveAll(tmp)
	if err := runMaven(ctx, mvn, tmp, cfg.version); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("fetch Kafka %s: %w", cfg.version, err)
	}
	if err := os.RemoveAll(d.Dir); err != nil { // an old incomplete copy
		return nil, fmt.Errorf("fetch Kafka %s: remove stale %s: %w", cfg.version, d.Dir, err)
	}
	if err := os.Rename(tmp, d.Dir); err != nil {
		return nil, fmt.Errorf("fetch Kafka %s: %w", cfg.version, err)
	}
	n, _ := filepath.Glob(filepath.Join(d.Libs(), "*.jar"))
	fmt.Fprintf(cfg.log, "fetched %d jars in %.1fs into %s\n", len(n), time.Since(start).Seconds(), d.Libs())
	return d, nil
}

func isComplete(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, completeMarker))
	return err == nil
}

func runMaven(ctx context.Context, mvn, dir, version string) error {
	pom := filepath.Join(dir, "pom.xml")
	if err := os.WriteFile(pom, renderPom(version), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", pom, err)
	}
	libs := filepath.Join(dir, "libs")
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-Dstyle.color=never", "-f", pom,
		"dependency:copy-dependencies", "-DoutputDirectory="+libs, "-DincludeScope=runtime")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("fetch Kafka %s with mvn: %w", version, ctx.Err())
		}
		return fmt.Errorf("fetch Kafka %s with mvn (check network access to Maven Central, or proxy settings in ~/.m2/settings.xml): %w\n%s",
			version, err, tailLines(ansiRE.ReplaceAllString(out.String(), ""), 30))
	}
	jar := filepath.Join(libs, "kafka_2.13-"+version+".jar")
	if _, err := os.Stat(jar); err != nil {
		return fmt.Errorf("fetch Kafka %s with mvn: %w", version, errors.New("mvn succeeded but "+jar+" is missing"))
	}
	return nil
}

// ansiRE matches colour codes, which some mvn builds print even with -B.
var ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// The binding matches the slf4j-api 1.7 that Kafka 4.1 depends on
// (log4j-slf4j2-impl would need slf4j 2 and leave the broker silent).
var pomTemplate = template.Must(template.New("pom").Parse(`<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.kbench</groupId>
  <artifactId>kafka-dist</artifactId>
  <version>{{.}}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>{{.}}</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>{{.}}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>2.24.3</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>2.24.3</version></dependency>
  </dependencies>
</project>
`))

func renderPom(version string) []byte {
	var b strings.Builder
	_ = pomTemplate.Execute(&b, version) // version is validated: no XML escaping needed
	return []byte(b.String())
}
