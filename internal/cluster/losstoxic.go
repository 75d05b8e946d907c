package cluster

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

// lossToxicType is the loss toxic's name in Toxiproxy's registry.
const lossToxicType = "kbench_loss"

// lossSegment is the segment size loss is counted in: an Ethernet path's
// TCP segment (1500-byte MTU less 40 bytes of headers).
const lossSegment = 1460

// lossToxic emulates packet loss as a TCP stream's reader sees it. A proxy
// relays a byte stream, not packets: dropping bytes would corrupt it, and
// TCP never loses bytes, it delivers them late. A lost segment stalls its
// connection, in order, until it is sent again. So each chunk the proxy
// reads (up to 32 KiB: one or more segments) holds lost segments with the
// probability that any of its segments of lossSegment bytes is lost, and
// then it and every byte behind it wait Retransmit (one wait per chunk,
// however many of its segments are lost: TCP with SACK resends them
// together). What it does not do: shrink the congestion window after a
// loss, or distinguish fast retransmit (about a round trip) from a
// retransmission timeout; Retransmit is the caller's choice of what a loss
// costs.
type lossToxic struct {
	Share      float64 `json:"share"`      // of segments lost, 0 to 1
	Retransmit int64   `json:"retransmit"` // ms a lost segment holds its stream back
}

// Pipe relays chunks, holding back those with a lost segment.
func (t *lossToxic) Pipe(stub *toxics.ToxicStub) {
	wait := time.Duration(t.Retransmit) * time.Millisecond
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			if chunkLost(t.Share, len(c.Data), rand.Float64()) {
				select {
				case <-time.After(wait):
				case <-stub.Interrupt:
					stub.Output <- c // never drop data when the toxic is removed
					return
				}
			}
			stub.Output <- c
		}
	}
}

// chunkLost says whether a chunk of n bytes holds a lost segment, for a
// uniform draw u in [0, 1): each of its ceil(n / lossSegment) segments is
// lost with probability share.
func chunkLost(share float64, n int, u float64) bool {
	segments := (n + lossSegment - 1) / lossSegment
	return u < 1-math.Pow(1-share, float64(segments))
}
