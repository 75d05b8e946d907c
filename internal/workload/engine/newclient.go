package engine

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// newClientMu serializes kgo.NewClient for the engines' clients. A workload's
// clients share their options (ClientOpts), and NewClient writes into a
// shared one: kgo.DefaultCompressor removes duplicate codecs in place, in
// the slice ProducerBatchCompression holds. Clients started at once wrote
// it together (a data race under -race). NewClient does no I/O, so the
// lock costs nothing measurable.
var newClientMu sync.Mutex

// NewClient returns a client with opts and then extra. opts may be shared
// with other clients: they are copied, since appending to a slice with
// room to spare would write its backing array (the race detector saw two
// clients' hooks written into one array, and one client could have been
// given another's hooks).
//
// Every client retries a connection that ends at its first read
// (kgo.AlwaysRetryEOF): the run checked before its start that the cluster
// answers (kadmin.Ping, without it), where such an EOF means TLS or SASL
// is missing; mid-run it is a broker gone behind a proxy or a load
// balancer, which accepts the connection and closes it, and which Java's
// clients retry. Without it franz-go failed every record for the dead
// leader's partitions (CLIENT_ERROR) through kbench's network proxies.
func NewClient(opts []kgo.Opt, extra ...kgo.Opt) (*kgo.Client, error) {
	all := append(append(make([]kgo.Opt, 0, len(opts)+len(extra)+1), opts...), extra...)
	all = append(all, kgo.AlwaysRetryEOF())
	newClientMu.Lock()
	defer newClientMu.Unlock()
	return kgo.NewClient(all...)
}

// PerClient gives each client the shared options and then its own
// (its client id, transactional id, metrics hooks): a spec's ClientOpts.
// The shared slice is copied for each client, so one client's options
// never write into another's.
func PerClient(shared []kgo.Opt, own func(i int) []kgo.Opt) func(i int) []kgo.Opt {
	return func(i int) []kgo.Opt {
		return append(append(make([]kgo.Opt, 0, len(shared)+4), shared...), own(i)...)
	}
}
