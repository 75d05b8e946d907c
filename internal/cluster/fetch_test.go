package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeMaven stands in for mvn: it creates the broker jars, or the metrics
// agent's when that is the artifact asked for, where asked.
const fakeMaven = `a2=; for a in "$@"; do case $a in -DoutputDirectory=*) d=${a#-DoutputDirectory=};; -Dartifact=*) a2=${a#-Dartifact=};; esac; done
mkdir -p "$d"
case $a2 in io.prometheus.jmx:jmx_prometheus_javaagent:*) touch "$d/jmx_prometheus_javaagent-1.0.1.jar";;
org.apache.kafka:kafka-storage:*:jar:test) v=${a2#org.apache.kafka:kafka-storage:}; touch "$d/kafka-storage-${v%%:*}-test.jar";;
*) touch "$d/kafka_2.13-4.1.2.jar" "$d/kafka-tools-4.1.2.jar";; esac`

func TestFetch(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cache := t.TempDir()
	// Leftover of an interrupted fetch: no marker, so it is replaced.
	stale := filepath.Join(cache, "kafka", "4.1.2", "libs")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	d, err := Fetch(ctx, WithCacheDir(cache), WithVersion("4.1.2"), WithMaven(fakeTool(t, "mvn", fakeMaven)), WithLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "kafka", "4.1.2", "libs", "*"); d.Classpath() != want {
		t.Fatalf("Classpath = %q, want %q", d.Classpath(), want)
	}
	for _, f := range []string{"libs/kafka_2.13-4.1.2.jar", "pom.xml", completeMarker} {
		if _, err := os.Stat(filepath.Join(d.Dir, f)); err != nil {
			t.Errorf("after fetch: %v", err)
		}
	}
	if want := filepath.Join(cache, "jmx-exporter", AgentVersion, "jmx_prometheus_javaagent-"+AgentVersion+".jar"); d.Agent != want {
		t.Errorf("Agent = %q, want %q", d.Agent, want)
	} else if _, err := os.Stat(d.Agent); err != nil {
		t.Errorf("after fetch: %v", err)
	}
	if want := filepath.Join(cache, "kafka-storage-test", "4.1.2", "kafka-storage-4.1.2-test.jar"); d.TieredJar != want {
		t.Errorf("TieredJar = %q, want %q", d.TieredJar, want)
	} else if _, err := os.Stat(d.TieredJar); err != nil {
		t.Errorf("after fetch: %v", err)
	}
	if !strings.Contains(log.String(), "fetched 2 jars") {
		t.Errorf("progress %q, want a 'fetched 2 jars' line", log.String())
	}
	if tmp, _ := filepath.Glob(filepath.Join(cache, "kafka", ".fetch-*")); len(tmp) != 0 {
		t.Errorf("temp dirs left behind: %v", tmp)
	}
	// Second fetch: offline, mvn not even looked up.
	if _, err := Fetch(ctx, WithCacheDir(cache), WithVersion("4.1.2"), WithMaven("/nonexistent/mvn")); err != nil {
		t.Fatalf("cached fetch ran mvn: %v", err)
	}
}

func TestFetchMissingJar(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cache := t.TempDir()
	_, err := Fetch(ctx, WithCacheDir(cache), WithVersion("4.1.2"), WithMaven(fakeTool(t, "mvn", "exit 0")))
	if err == nil || !strings.Contains(err.Error(), "kafka_2.13-4.1.2.jar is missing") {
		t.Fatalf("Fetch: %v, want a missing-jar error", err)
	}
	if isComplete(filepath.Join(cache, "kafka", "4.1.2")) {
		t.Fatal("a failed fetch must not look complete")
	}
}

func TestRenderPom(t *testing.T) {
	t.Parallel()
	got := string(renderPom("4.1.2"))
	for _, want := range []string{
		"<artifactId>kafka_2.13</artifactId><version>4.1.2</version>",
		"<artifactId>kafka-tools</artifactId><version>4.1.2</version>",
		// Regression: log4j-slf4j2-impl with Kafka's slf4j-api 1.7 logs nothing.
		"<artifactId>log4j-slf4j-impl</artifactId>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("pom lacks %q", want)
		}
	}
}

func TestANSIStripped(t *testing.T) {
	t.Parallel()
	in := "\x1b[0m\x1b[0m[ERROR] Failed to execute goal\x1b[1;31m!\x1b[m"
	if got := ansiRE.ReplaceAllString(in, ""); got != "[ERROR] Failed to execute goal!" {
		t.Fatalf("got %q", got)
	}
}
