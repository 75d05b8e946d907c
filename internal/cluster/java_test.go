package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseJavaMajor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out  string
		want int
	}{
		{"openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment", 17},
		{"java version \"1.8.0_292\"\nJava(TM) SE Runtime Environment", 8},
		{"openjdk version \"21\" 2023-09-19", 21},
		{"openjdk version \"22-ea\" 2024-03-19", 22},
		{"Picked up JAVA_TOOL_OPTIONS: -Xmx1g\nopenjdk version \"11.0.2\" 2019-01-15", 11},
	}
	for _, tt := range tests {
		got, err := parseJavaMajor(tt.out)
		if err != nil || got != tt.want {
			t.Errorf("parseJavaMajor(%q) = %d, %v; want %d", tt.out, got, err, tt.want)
		}
	}
	if _, err := parseJavaMajor("bash: java: command not found"); err == nil {
		t.Error("want an error for output without a version")
	}
}

// fakeTool writes an executable script, standing in for java or mvn.
func fakeTool(t *testing.T, name, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestToolErrors(t *testing.T) {
	t.Parallel()
	java8 := fakeTool(t, "java", `echo 'java version "1.8.0_292"' >&2`)
	java17 := fakeTool(t, "java", `echo 'openjdk version "17.0.1"' >&2`)
	mvnFail := fakeTool(t, "mvn", `echo "[ERROR] Could not resolve dependencies"; exit 1`)
	tests := []struct {
		name string
		opts []Opt
		want string
	}{
		{"no java", []Opt{WithJava("/nonexistent/java")}, "install Java 17 or newer"},
		{"old java", []Opt{WithJava(java8)}, "is Java 8: Kafka 4 needs Java 17"},
		{"no maven", []Opt{WithJava(java17), WithMaven("/nonexistent/mvn")}, "install Apache Maven"},
		{"maven fails", []Opt{WithJava(java17), WithMaven(mvnFail)}, "Could not resolve dependencies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			opts := append([]Opt{WithCacheDir(t.TempDir())}, tt.opts...)
			_, err := Start(ctx, opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
