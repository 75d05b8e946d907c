package cluster

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
)

// minJava is the oldest Java that runs Kafka 4 brokers.
const minJava = 17

// checkJava finds java and checks its version, so that an old Java fails
// with a message instead of an UnsupportedClassVersionError in a log.
func checkJava(ctx context.Context, java string) (string, error) {
	path, err := exec.LookPath(java)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH: install Java %d or newer (or set JAVA_HOME): %w", java, minJava, err)
	}
	out, err := exec.CommandContext(ctx, path, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("run %s -version: %w\n%s", path, err, tailLines(string(out), 10))
	}
	major, err := parseJavaMajor(string(out))
	if err != nil {
		return "", fmt.Errorf("%s -version: %w", path, err)
	}
	if major < minJava {
		return "", fmt.Errorf("%s is Java %d: Kafka 4 needs Java %d or newer, install it and put it first on PATH (or set JAVA_HOME)", path, major, minJava)
	}
	return path, nil
}

var javaVersionRE = regexp.MustCompile(`version "([0-9]+)(?:\.([0-9]+))?[^"]*"`)

// parseJavaMajor reads the major version from `java -version` output:
// "1.8.0_292" is 8, "17.0.15" is 17, "21" is 21.
func parseJavaMajor(out string) (int, error) {
	m := javaVersionRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no version in output %q", tailLines(out, 3))
	}
	major, _ := strconv.Atoi(m[1])
	if major == 1 && m[2] != "" {
		major, _ = strconv.Atoi(m[2])
	}
	return major, nil
}
