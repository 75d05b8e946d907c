package verify

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestShareAndCheckFromPieces: a ledger shared in pieces while its
// records settle is rebuilt elsewhere and checked against the topic as
// the ledger itself would be; a record not yet settled holds back its
// client's later ones until it settles; a failed record is not shared.
func TestShareAndCheckFromPieces(t *testing.T) {
	opts := fake(t, 1, "s")
	cl, err := kgo.NewClient(append(opts, kgo.DefaultProduceTopic("s"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	l := New(true)
	trs := []interface {
		Stamp(*kgo.Record, int64)
		Done(*kgo.Record, int64, error)
	}{l.Tracker(0), l.Tracker(1)}
	write := func(client int, seq int64) *kgo.Record {
		r := &kgo.Record{Value: []byte("v")}
		trs[client].Stamp(r, seq)
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	var c ShareCursor
	var pieces [][]byte
	share := func(maxBytes int) {
		for {
			p := l.Share(&c, maxBytes)
			if p == nil {
				return
			}
			pieces = append(pieces, p)
			if len(pieces) > 100 {
				t.Fatal("Share keeps giving pieces")
			}
		}
	}
	// Client 0: seq 0–4 acknowledged, 5 failed (written all the same), 6
	// written and not yet answered, 7 acknowledged.
	for seq := int64(0); seq < 5; seq++ {
		r := write(0, seq)
		trs[0].Done(r, seq, nil)
	}
	r5 := write(0, 5)
	trs[0].Done(r5, 5, errors.New("timed out"))
	r6 := write(0, 6)
	r7 := write(0, 7)
	trs[0].Done(r7, 7, nil)
	// Client 1: seq 0 acknowledged at an offset never written: lost.
	ghost := &kgo.Record{Partition: 0, Offset: 999}
	trs[1].Stamp(ghost, 0)
	trs[1].Done(ghost, 0, nil)

	share(pieceHeader + 2*pieceEntry) // two records a piece
	if n := entries(t, pieces); n != 6 {
		t.Fatalf("shared %d records before seq 6 settled, want 6 (client 0's 0–4, client 1's 0)", n)
	}
	trs[0].Done(r6, 6, nil)
	share(1 << 20)
	if n := entries(t, pieces); n != 8 {
		t.Fatalf("shared %d records once seq 6 settled, want 8", n)
	}

	imported, err := FromPieces(append(pieces, pieces[0])) // a piece read twice counts once
	if err != nil {
		t.Fatal(err)
	}
	if imported.Acked() != l.Acked() {
		t.Errorf("rebuilt ledger acknowledged %d, the ledger %d", imported.Acked(), l.Acked())
	}
	want, err := Check(ctx, l, opts, "s", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Check(ctx, imported, opts, "s", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	g := [6]int64{got.Acked, got.Read, got.Lost, got.Duplicated, got.OutOfOrder, got.Unacknowledged}
	w := [6]int64{want.Acked, want.Read, want.Lost, want.Duplicated, want.OutOfOrder, want.Unacknowledged}
	if g != w || g != [6]int64{8, 8, 1, 0, 0, 1} {
		t.Errorf("from pieces: acked, read, lost, duplicated, out of order, unacknowledged = %v; the ledger's %v; want 8, 8, 1, 0, 0, 1", g, w)
	}
}

func entries(t *testing.T, pieces [][]byte) int {
	t.Helper()
	n := 0
	for _, p := range pieces {
		n += (len(p) - pieceHeader) / pieceEntry
	}
	return n
}

// TestFromPiecesRefuses: what is not a piece, or pieces of two runs, is
// an error that says which piece.
func TestFromPiecesRefuses(t *testing.T) {
	a, b := New(true), New(true)
	for _, l := range []*Ledger{a, b} {
		tr := l.Tracker(0)
		r := &kgo.Record{Partition: 0, Offset: 1}
		tr.Stamp(r, 0)
		tr.Done(r, 0, nil)
	}
	pa, pb := a.Share(&ShareCursor{}, 1<<20), b.Share(&ShareCursor{}, 1<<20)
	tests := []struct {
		name   string
		pieces [][]byte
		want   string
	}{
		{"none", nil, "no ledger piece"},
		{"not a piece", [][]byte{[]byte("a result slice")}, "ledger piece 0: not a piece"},
		{"cut short", [][]byte{pa[:len(pa)-3]}, "ledger piece 0: not a piece"},
		{"two runs", [][]byte{pa, pb}, "ledger piece 1: run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := FromPieces(tt.pieces); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if !a.Shareable() || New(false).Shareable() {
		t.Error("a stamping ledger is shareable, a counting one is not")
	}
	a.JudgeLatestPerKey()
	if a.Shareable() {
		t.Error("a ledger judged by latest value per key is not shareable")
	}
}
