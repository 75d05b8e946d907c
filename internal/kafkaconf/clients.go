package kafkaconf

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ClientID is client i's client.id, one rule for plans and drop-ins: in a
// workload of a plan, base-workload-i (a plan's workloads share the
// cluster's client.id, so the workload's name tells them apart); in a
// drop-in's one workload (workload ""), base for the first client and
// base-i for the others, as the Apache tool names its one client.
func ClientID(base, workload string, i int) string {
	if workload != "" {
		return base + "-" + workload + "-" + strconv.Itoa(i)
	}
	if i == 0 {
		return base
	}
	return base + "-" + strconv.Itoa(i)
}

// ClientOpts are producer client i's own options beyond those every
// client of the workload shares, the same for plans and the drop-in
// producer: its client.id (ClientID); with transactions, its own transactional id (the configured
// one for client 0, with "-i" for client i: two clients with one id would
// fence each other, and the second's first commit would fail); without,
// permission to give up on in-flight idempotent records after the delivery
// timeout. kbench never re-sends a failed record, so the duplicate that
// franz-go guards against by default cannot happen, while waiting forever
// on a dead broker would hang the run. franz-go refuses that permission
// with transactions, whose records are bounded by the commit instead.
func (p *Producer) ClientOpts(workload string, i int) []kgo.Opt {
	opts := []kgo.Opt{kgo.ClientID(ClientID(p.ClientID, workload, i))}
	switch {
	case p.TransactionalID != "":
		return append(opts, kgo.TransactionalID(TransactionalID(p.TransactionalID, i)))
	case p.Idempotence:
		return append(opts, kgo.AllowIdempotentProduceCancellation())
	}
	return opts
}

// TransactionalID is client i's transactional id for the configured one.
func TransactionalID(base string, i int) string {
	if i == 0 {
		return base
	}
	return base + "-" + strconv.Itoa(i)
}

// GeneratedTransactionalID is a transactional id for a workload that asks
// for transactions without naming one, unique per run as the Apache tool
// makes its own (performance-producer-<32 hex digits>).
func GeneratedTransactionalID(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// ClientIDOf is consumer client i's client.id, one rule for plans and
// drop-ins: in a workload of a plan, the configured id as
// ID-workload-i, or without one the id the Java consumer numbers the
// consumers of one process with (consumer-GROUP-(i+1)); in a drop-in's
// one workload (workload ""), the one id every client shares, as the
// Apache tool's single consumer has (its --print-metrics rows tell the
// clients apart by a thread tag).
func (c *Consumer) ClientIDOf(workload string, i int) string {
	switch {
	case workload == "":
		return c.clientID()
	case c.ClientID != "":
		return c.ClientID + "-" + workload + "-" + strconv.Itoa(i)
	}
	group := c.GroupID
	if group == "" {
		group = "null" // Java formats a null group.id so
	}
	return "consumer-" + group + "-" + strconv.Itoa(i+1)
}
