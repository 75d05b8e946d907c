package runner

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbench/kbench/internal/kafkaconf"
)

// ProducerClientOpts are producer client i's options beyond those every
// client of the workload shares, the same for plans and the drop-in
// producer: with transactions, its own transactional id (the configured
// one for client 0, with "-i" for client i: two clients with one id would
// fence each other, and the second's first commit would fail); without,
// permission to give up on in-flight idempotent records after the delivery
// timeout. kbench never re-sends a failed record, so the duplicate that
// franz-go guards against by default cannot happen, while waiting forever
// on a dead broker would hang the run. franz-go refuses that permission
// with transactions, whose records are bounded by the commit instead.
func ProducerClientOpts(pc *kafkaconf.Producer, i int) []kgo.Opt {
	switch {
	case pc.TransactionalID != "":
		return []kgo.Opt{kgo.TransactionalID(TransactionalID(pc.TransactionalID, i))}
	case pc.Idempotence:
		return []kgo.Opt{kgo.AllowIdempotentProduceCancellation()}
	}
	return nil
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
// makes its own (performance-producer-<random>).
func GeneratedTransactionalID(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}
