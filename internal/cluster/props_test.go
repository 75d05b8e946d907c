package cluster

import (
	"strings"
	"testing"
)

func TestBrokerProps(t *testing.T) {
	t.Parallel()
	brokers := []Broker{
		{ID: 1, Port: 9092, ControllerPort: 9093, Dir: "/d/node-1"},
		{ID: 2, Port: 9094, ControllerPort: 9095, Dir: "/d/node-2"},
		{ID: 3, Port: 9096, ControllerPort: 9097, Dir: "/d/node-3"},
	}
	tests := []struct {
		name  string
		n     int
		extra map[string]string
		want  map[string]string
	}{
		{"one node", 1, nil, map[string]string{
			"node.id":                          "1",
			"process.roles":                    "broker,controller",
			"controller.quorum.voters":         "1@127.0.0.1:9093",
			"listeners":                        "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
			"advertised.listeners":             "PLAINTEXT://127.0.0.1:9092",
			"log.dirs":                         "/d/node-1/data",
			"offsets.topic.replication.factor": "1",
			"transaction.state.log.replication.factor": "1",
			"transaction.state.log.min.isr":            "1",
			"group.initial.rebalance.delay.ms":         "0",
			"auto.create.topics.enable":                "true",
			"num.partitions":                           "1",
		}},
		{"three nodes", 3, nil, map[string]string{
			"controller.quorum.voters":                 "1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097",
			"offsets.topic.replication.factor":         "3",
			"transaction.state.log.replication.factor": "3",
			"transaction.state.log.min.isr":            "2",
		}},
		{"extra wins", 1, map[string]string{"num.partitions": "6"}, map[string]string{"num.partitions": "6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := brokerProps(brokers[0], quorumVoters(brokers[:tt.n]), tt.n, tt.extra)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestRenderProps(t *testing.T) {
	t.Parallel()
	got := string(renderProps(map[string]string{
		"b":       "2",
		"a":       "1",
		"path":    `C:\x`,
		"k=ey":    "v",
		"spaced":  " lead",
		"newline": "x\ny",
	}))
	want := "# Written by kbench; rewritten on every `cluster up`.\n" +
		"a=1\nb=2\nk\\=ey=v\nnewline=x\\ny\npath=C:\\\\x\nspaced=\\ lead\n"
	if got != want {
		t.Fatalf("renderProps:\n%s\nwant:\n%s", got, want)
	}
}

func TestLog4jConfig(t *testing.T) {
	t.Parallel()
	got := string(log4jConfig("/d/node-1/server.log"))
	for _, want := range []string{
		"appender.file.fileName = /d/node-1/server.log",
		"appender.file.filePattern = /d/node-1/server.log.%i",
		"appender.file.layout.pattern = [%d] %p %m (%c)%n",
		"rootLogger.level = INFO",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log4j config lacks %q:\n%s", want, got)
		}
	}
}
