package cluster

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// quorumVoters is the static KRaft quorum: every node votes.
func quorumVoters(brokers []Broker) string {
	v := make([]string, len(brokers))
	for i, b := range brokers {
		v[i] = fmt.Sprintf("%d@127.0.0.1:%d", b.ID, b.ControllerPort)
	}
	return strings.Join(v, ",")
}

// dataDir is where a broker keeps its partitions (log.dirs).
func dataDir(b Broker) string { return filepath.Join(b.Dir, "data") }

// brokerProps is one node's server.properties: a combined broker and
// controller on loopback (its client listener on b.Host when given, which
// the brokers then replicate over too), with internal topics replicated as widely as the
// cluster allows. extra is applied last (reserved keys are validated away).
func brokerProps(b Broker, voters string, n int, extra map[string]string) map[string]string {
	p := map[string]string{
		"process.roles":                                    "broker,controller",
		"node.id":                                          strconv.Itoa(b.ID),
		"controller.quorum.voters":                         voters,
		"listeners":                                        fmt.Sprintf("PLAINTEXT://%s,CONTROLLER://127.0.0.1:%d", b.Addr(), b.ControllerPort),
		"advertised.listeners":                             "PLAINTEXT://" + b.Addr(),
		"listener.security.protocol.map":                   "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"controller.listener.names":                        "CONTROLLER",
		"inter.broker.listener.name":                       "PLAINTEXT",
		"log.dirs":                                         dataDir(b),
		"num.partitions":                                   "1",
		"auto.create.topics.enable":                        "true",
		"offsets.topic.replication.factor":                 strconv.Itoa(min(n, 3)),
		"transaction.state.log.replication.factor":         strconv.Itoa(min(n, 3)),
		"transaction.state.log.min.isr":                    strconv.Itoa(min(n, 2)),
		"share.coordinator.state.topic.replication.factor": strconv.Itoa(min(n, 3)),
		"share.coordinator.state.topic.min.isr":            strconv.Itoa(min(n, 2)),
		// Consumers in benchmarks join at once; waiting 3 s for more only
		// delays the first record.
		"group.initial.rebalance.delay.ms": "0",
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// renderProps writes properties in Java's format, sorted so that files
// diff cleanly between runs.
func renderProps(p map[string]string) []byte {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# Written by kbench; rewritten on every `cluster up`.\n")
	for _, k := range keys {
		b.WriteString(escapeProp(k, true))
		b.WriteByte('=')
		b.WriteString(escapeProp(p[k], false))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// escapeProp escapes what java.util.Properties would misread: backslashes
// and line breaks everywhere, separators and spaces in keys, and a leading
// space in values.
func escapeProp(s string, key bool) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case key && (r == '=' || r == ':' || r == ' ' || r == '#' || r == '!'):
			b.WriteByte('\\')
			b.WriteRune(r)
		case !key && i == 0 && r == ' ':
			b.WriteString(`\ `)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// log4jConfig sends the broker's INFO logs to one rolling file. Written by
// kbench because Kafka's own config lives in its tarball, which Maven does
// not fetch.
func log4jConfig(logPath string) []byte {
	dir, file := filepath.Dir(logPath), filepath.Base(logPath)
	return []byte(fmt.Sprintf(`# Written by kbench.
status = warn
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = %[1]s/%[2]s
appender.file.filePattern = %[1]s/%[2]s.%%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%%d] %%p %%m (%%c)%%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 100MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 2
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
# As in Kafka's own config: per-request and state-change chatter off.
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.statechange.name = state.change.logger
logger.statechange.level = WARN
`, dir, file))
}
