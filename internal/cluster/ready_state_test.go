package cluster

import "testing"

// TestLastStateLine: the one line a start that timed out says of the
// broker: its last life-cycle line, without the log4j prefix.
func TestLastStateLine(t *testing.T) {
	log := `[2026-12-05 10:00:00,001] INFO [BrokerLifecycleManager id=3] The broker is in RECOVERY. (kafka.server.BrokerLifecycleManager)
[2026-12-05 10:00:01,002] INFO KafkaConfig values:
	auto.create.topics.enable = true
	broker.id = 3
	controller.quorum.voters = 1@127.0.0.1:9093
[2026-12-05 10:00:02,003] INFO [BrokerLifecycleManager id=3] Unable to register the broker because the RPC got timed out before it could be sent. (kafka.server.BrokerLifecycleManager)
	zookeeper.connect = null
`
	want := "INFO [BrokerLifecycleManager id=3] Unable to register the broker because the RPC got timed out before it could be sent. (kafka.server.BrokerLifecycleManager)"
	if got := lastStateLine(log); got != want {
		t.Errorf("lastStateLine = %q\nwant %q", got, want)
	}
	if got := lastStateLine("\tcontroller.quorum.voters = 1@127.0.0.1:9093\n"); got != "" {
		t.Errorf("a log of configuration only: %q", got)
	}
}
