package cluster

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
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

// TestTieredProps: a tiered-storage cluster's brokers get remote log
// storage through LocalTieredStorage in the cluster's shared folder, the
// metadata manager on the brokers' own listener, and the user's broker
// configs over kbench's.
func TestTieredProps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		n     int
		extra map[string]string
		want  map[string]string
	}{
		{"one broker", 1, nil, map[string]string{
			"remote.log.storage.system.enable":                         "true",
			"remote.log.storage.manager.class.name":                    TieredStorageClass,
			"remote.log.metadata.manager.listener.name":                "PLAINTEXT",
			"rlmm.config.remote.log.metadata.topic.replication.factor": "1",
			"rlmm.config.remote.log.metadata.topic.min.isr":            "1",
			"remote.log.manager.task.interval.ms":                      "1000",
			"log.retention.check.interval.ms":                          "1000",
		}},
		{"three brokers", 3, nil, map[string]string{
			"rlmm.config.remote.log.metadata.topic.replication.factor": "3",
			"rlmm.config.remote.log.metadata.topic.min.isr":            "2",
		}},
		{"the user's configs win", 1, map[string]string{"remote.log.manager.task.interval.ms": "5000"}, map[string]string{
			"remote.log.manager.task.interval.ms": "5000",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := &Cluster{Dir: dir, Tiered: &Tiered{Jar: "/cache/kafka-storage-4.3.1-test.jar", Dir: filepath.Join(dir, "remote-storage")}}
			for i := range tt.n {
				nd := filepath.Join(dir, fmt.Sprintf("node-%d", i+1))
				c.Brokers = append(c.Brokers, Broker{ID: i + 1, Port: 9092 + 2*i, ControllerPort: 9093 + 2*i, Dir: nd,
					ConfigPath: filepath.Join(nd, "server.properties"), LogPath: filepath.Join(nd, "server.log")})
			}
			if err := c.writeConfigs(tt.extra); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(c.Tiered.Dir); err != nil {
				t.Errorf("the remote tier's folder: %v", err)
			}
			for _, b := range c.Brokers {
				data, err := os.ReadFile(b.ConfigPath)
				if err != nil {
					t.Fatal(err)
				}
				got := string(data)
				want := maps.Clone(tt.want)
				want["rsm.config.dir"] = c.Tiered.Dir
				want["remote.log.storage.manager.class.path"] = c.Tiered.Jar
				for k, v := range want {
					if !strings.Contains(got, "\n"+k+"="+v+"\n") {
						t.Errorf("broker %d: no %s=%s in\n%s", b.ID, k, v, got)
					}
				}
			}
		})
	}
}
