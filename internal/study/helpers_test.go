package study

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/kafkaconf"
	"github.com/kbench/kbench/internal/payload"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The runner's test helpers that the study's tests share (runner_test.go
// has their twins: test files are not imported across packages).

var topicSeq atomic.Int64

func testTopic(t *testing.T) string {
	return fmt.Sprintf("study-%s-%d-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), time.Now().UnixNano()%1e6, topicSeq.Add(1))
}

func producerOpts(t *testing.T, bootstrap string) []kgo.Opt {
	t.Helper()
	pc, _, err := kafkaconf.ParseProducer([]kafkaconf.Prop{
		{Key: "bootstrap.servers", Value: bootstrap, Source: "test"},
		{Key: "acks", Value: "all", Source: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := pc.Opts(100)
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

func consumerOpts(t *testing.T, bootstrap string) []kgo.Opt {
	t.Helper()
	cc, _, err := kafkaconf.ParseConsumer([]kafkaconf.Prop{
		{Key: "bootstrap.servers", Value: bootstrap, Source: "test"},
		{Key: "auto.offset.reset", Value: "earliest", Source: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cc.Opts()
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

func values(t *testing.T) payload.Source {
	t.Helper()
	v, err := payload.Random(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
