package kafkaconf

import (
	"strings"
	"testing"
)

func TestWithProfile(t *testing.T) {
	user := []Prop{{Key: "linger.ms", Value: "20", Source: "--command-property"}, {Key: "acks", Value: "1", Source: "--command-property"}}
	props, desc, err := WithProfile("throughput", "--profile", user)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := ParseProducer(append(props, Prop{Key: "bootstrap.servers", Value: "127.0.0.1:9092"}))
	if err != nil {
		t.Fatal(err)
	}
	if p.BatchSize != 1048576 || p.Linger.Milliseconds() != 20 || p.Acks != "1" || p.BufferMemory != 268435456 {
		t.Errorf("batch.size %d, linger %s, acks %s, buffer.memory %d; want the profile's batch and buffer, the user's linger and acks", p.BatchSize, p.Linger, p.Acks, p.BufferMemory)
	}
	for _, want := range []string{"profile throughput: batch.size=1048576", "buffer.memory=268435456", "(yours kept: linger.ms)"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description %q lacks %q", desc, want)
		}
	}
	if _, _, err := WithProfile("fast", "--profile", nil); err == nil || !strings.Contains(err.Error(), `--profile "fast": no such profile; use throughput`) {
		t.Errorf("unknown profile: %v", err)
	}
	if got, desc, err := WithProfile("", "--profile", user); err != nil || len(got) != 2 || desc != "" {
		t.Errorf("no profile: %v %q %v", got, desc, err)
	}
}
