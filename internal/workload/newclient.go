package workload

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// newClientMu serializes kgo.NewClient for producer clients. A workload's
// clients share their options (ClientOpts), and NewClient writes into a
// shared one: kgo.DefaultCompressor removes duplicate codecs in place, in
// the slice ProducerBatchCompression holds. Clients started at once wrote
// it together (a data race under -race). NewClient does no I/O, so the
// lock costs nothing measurable.
var newClientMu sync.Mutex

// newClient returns a client with opts and then extra. opts may be shared
// with other clients: they are copied, since appending to a slice with
// room to spare would write its backing array (the race detector saw two
// clients' hooks written into one array, and one client could have been
// given another's hooks).
func newClient(opts []kgo.Opt, extra ...kgo.Opt) (*kgo.Client, error) {
	all := append(append(make([]kgo.Opt, 0, len(opts)+len(extra)), opts...), extra...)
	newClientMu.Lock()
	defer newClientMu.Unlock()
	return kgo.NewClient(all...)
}
