package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kbench/kbench/internal/faults/timeline"
	"github.com/kbench/kbench/internal/result"
)

// cutOutcome says in one sentence what a network partition of a leader
// did, from what was measured: what the broker was cut from, whether the
// controller fenced it and its partitions moved, and how long the
// producers of the given acks settings got no acknowledgement. Kafka's
// rule behind it: a broker is fenced only when its controller stops
// hearing its heartbeats (broker.session.timeout.ms); a leader cut from
// the other brokers alone keeps its session and its partitions, and with
// acks=all no write is acknowledged while its followers cannot fetch (and
// none once its ISR is below min.insync.replicas). Empty for any other
// fault, or a broker that led none of the scenario's partitions.
func cutOutcome(f result.Fault, cut string, acks []string) string {
	if cut == "" || f.Status != timeline.StatusDone || len(f.Partitions) == 0 {
		return ""
	}
	var b strings.Builder
	switch cut {
	case timeline.CutQuorum:
		b.WriteString("leader cut from the other brokers and the controller quorum: ")
		if f.ElectionMs != nil {
			fmt.Fprintf(&b, "fenced, new leaders elected after %.1f s", *f.ElectionMs/1000)
		} else {
			b.WriteString("not fenced while cut off, no election")
		}
	case timeline.CutBrokers:
		b.WriteString("leader cut from the other brokers, still in the quorum: ")
		if f.ElectionMs != nil {
			fmt.Fprintf(&b, "new leaders elected after %.1f s", *f.ElectionMs/1000)
		} else {
			b.WriteString("not fenced, no election")
		}
	default:
		return ""
	}
	if f.ISRShrunkMs != nil {
		fmt.Fprintf(&b, "; it left an ISR after %.1f s", *f.ISRShrunkMs/1000)
	}
	if f.UnavailableMs != nil && len(acks) > 0 {
		fmt.Fprintf(&b, "; writes with acks=%s got no acknowledgement for %.1f s", strings.Join(acks, " and "), *f.UnavailableMs/1000)
		if f.ElectionMs == nil && slices.Contains(acks, "all") {
			b.WriteString(" (acks=all waits for followers that cannot fetch, and is refused once the ISR is below min.insync.replicas)")
		}
	}
	return b.String()
}

// producerAcks are the acks settings of a repeat's verified producers,
// each once, in order.
func producerAcks(vs []result.Verification) []string {
	var out []string
	for _, v := range vs {
		if v.Acks != "" && !slices.Contains(out, v.Acks) {
			out = append(out, v.Acks)
		}
	}
	return out
}
