package verify

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A ledger is shared in pieces while its records settle, so that another
// process can check them if this one dies: a distributed run's worker
// publishes its pieces, and worker 0 checks a lost worker's records from
// them. A piece is pieceMagic, the run id, then one pieceEntry per
// acknowledged record.
const (
	pieceMagic  = "kbl1"
	pieceHeader = len(pieceMagic) + 8
	// client u32, sequence u64, partition i32, offset i64
	pieceEntry = 4 + 8 + 4 + 8
)

// ShareCursor is how far a ledger's records were shared: per client, the
// next sequence number not yet shared. The zero value starts at the
// beginning.
type ShareCursor struct{ next []int64 }

// Clone is a copy of c, to go back to when a piece could not be sent.
func (c ShareCursor) Clone() ShareCursor { return ShareCursor{next: append([]int64(nil), c.next...)} }

// Shareable says whether the ledger's records can be checked from shared
// pieces: a ledger judged by latest value per key, or of transactions
// (whose fate is settled only when each commits), cannot.
func (l *Ledger) Shareable() bool {
	return l.stamp && !l.latestPerKey && !l.transactional.Load()
}

// Share returns the records acknowledged since c, as a piece (nil: none),
// and moves c past them. Each client's records are shared in sequence up
// to the first that has not settled (neither acknowledged nor failed):
// what is shared never changes afterwards. maxBytes bounds the piece; the
// rest waits for the next call.
func (l *Ledger) Share(c *ShareCursor, maxBytes int) []byte {
	l.mu.Lock()
	clients := append([]*clientLedger(nil), l.clients...)
	l.mu.Unlock()
	for len(c.next) < len(clients) {
		c.next = append(c.next, 0)
	}
	var out []byte
	for i, cl := range clients {
		cl.mu.Lock()
		seq := c.next[i]
		for ; seq < int64(len(cl.recs)); seq++ {
			e := cl.recs[seq]
			if e.state&(stateAcked|stateFailed) == 0 {
				break
			}
			if e.state&stateAcked == 0 {
				continue
			}
			if out == nil {
				out = make([]byte, pieceHeader, 64<<10)
				copy(out, pieceMagic)
				binary.BigEndian.PutUint64(out[len(pieceMagic):], l.run)
			}
			if len(out)+pieceEntry > maxBytes {
				break
			}
			out = binary.BigEndian.AppendUint32(out, uint32(i))
			out = binary.BigEndian.AppendUint64(out, uint64(seq))
			out = binary.BigEndian.AppendUint32(out, uint32(e.partition))
			out = binary.BigEndian.AppendUint64(out, uint64(e.offset))
		}
		c.next[i] = seq
		cl.mu.Unlock()
	}
	return out
}

// FromPieces rebuilds a ledger from the pieces another process shared:
// its run id and every record it had acknowledged, for Check. Pieces may
// come in any order; a record in two pieces counts once.
func FromPieces(pieces [][]byte) (*Ledger, error) {
	if len(pieces) == 0 {
		return nil, errors.New("no ledger piece")
	}
	l := &Ledger{stamp: true, parts: map[int32]*ackGaps{}}
	for k, p := range pieces {
		if len(p) < pieceHeader || string(p[:len(pieceMagic)]) != pieceMagic || (len(p)-pieceHeader)%pieceEntry != 0 {
			return nil, fmt.Errorf("ledger piece %d: not a piece (%d bytes)", k, len(p))
		}
		run := binary.BigEndian.Uint64(p[len(pieceMagic):])
		if k == 0 {
			l.run = run
		} else if run != l.run {
			return nil, fmt.Errorf("ledger piece %d: run %x, the first piece's is %x", k, run, l.run)
		}
		for b := p[pieceHeader:]; len(b) > 0; b = b[pieceEntry:] {
			client := binary.BigEndian.Uint32(b)
			seq := int64(binary.BigEndian.Uint64(b[4:]))
			part := int32(binary.BigEndian.Uint32(b[12:]))
			off := int64(binary.BigEndian.Uint64(b[16:]))
			if seq < 0 || client > 1<<20 {
				return nil, fmt.Errorf("ledger piece %d: client %d, sequence %d out of range", k, client, seq)
			}
			for len(l.clients) <= int(client) {
				l.clients = append(l.clients, &clientLedger{})
			}
			e := l.clients[client].at(seq)
			if e.state&stateAcked == 0 {
				l.acked.Add(1)
			}
			e.state |= stateSent | stateAcked
			e.partition, e.offset = part, off
		}
	}
	return l, nil
}
