package cluster

import (
	"crypto/x509"
	"encoding/pem"
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

// TestHostProps: with WithHost the client listener (which the brokers
// also replicate over) binds and is advertised on the host, the
// controllers stay on loopback; a secured cluster keeps its internal
// listener on loopback too, and the broker's certificate names the host.
func TestHostProps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		host     string
		security string
		want     map[string]string
	}{
		{"plaintext", "10.77.0.1", SecurityNone, map[string]string{
			"listeners":                "PLAINTEXT://10.77.0.1:9092,CONTROLLER://127.0.0.1:9093",
			"advertised.listeners":     "PLAINTEXT://10.77.0.1:9092",
			"controller.quorum.voters": "1@127.0.0.1:9093,2@127.0.0.1:9095",
		}},
		{"ipv6", "fd00::1", SecurityNone, map[string]string{
			"listeners":            "PLAINTEXT://[fd00::1]:9092,CONTROLLER://127.0.0.1:9093",
			"advertised.listeners": "PLAINTEXT://[fd00::1]:9092",
		}},
		{"secured", "kafka1.example.com", SecuritySSL, map[string]string{
			"listeners":                  "SSL://kafka1.example.com:9092,INTERNAL://127.0.0.1:9192,CONTROLLER://127.0.0.1:9093",
			"advertised.listeners":       "SSL://kafka1.example.com:9092,INTERNAL://127.0.0.1:9192",
			"inter.broker.listener.name": "INTERNAL",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := &Cluster{Name: "h", Dir: dir, Security: tt.security}
			for i := range 2 {
				nd := filepath.Join(dir, fmt.Sprintf("node-%d", i+1))
				c.Brokers = append(c.Brokers, Broker{ID: i + 1, Port: 9092 + 2*i, ControllerPort: 9093 + 2*i, InternalPort: 9192 + i,
					Host: tt.host, Dir: nd, ConfigPath: filepath.Join(nd, "server.properties"), LogPath: filepath.Join(nd, "server.log")})
			}
			if tt.security != SecurityNone {
				if err := c.writeSecrets(); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.writeConfigs(nil); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(c.Brokers[0].ConfigPath)
			if err != nil {
				t.Fatal(err)
			}
			got := string(data)
			for k, v := range tt.want {
				if !strings.Contains(got, "\n"+k+"="+v+"\n") {
					t.Errorf("no %s=%s in\n%s", k, v, got)
				}
			}
			if want := strings.SplitN(c.Bootstrap(), ",", 2)[0]; !strings.Contains(tt.want["advertised.listeners"], want) {
				t.Errorf("bootstrap %s, want the advertised %s", c.Bootstrap(), tt.want["advertised.listeners"])
			}
			if tt.security != SecurityNone {
				checkCertNames(t, filepath.Join(c.Secrets.Dir, "broker.pem"), tt.host)
			}
		})
	}
}

// checkCertNames fails unless the PEM file's certificate names host.
func checkCertNames(t *testing.T, path, host string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for {
		var blk *pem.Block
		blk, data = pem.Decode(data)
		if blk == nil {
			t.Fatalf("%s: no certificate", path)
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if err := cert.VerifyHostname(host); err != nil {
			t.Errorf("the broker's certificate: %v", err)
		}
		return
	}
}
