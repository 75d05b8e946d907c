package load

import (
	"testing"
	"time"
)

func TestVURamp(t *testing.T) {
	t.Parallel()
	// k6's example: 0 → 10 users in 10 s, hold 10 s, 10 → 4 in 3 s.
	r, err := NewVURamp(0, []VUStage{{10 * time.Second, 10}, {10 * time.Second, 10}, {3 * time.Second, 4}})
	if err != nil {
		t.Fatal(err)
	}
	s := time.Second
	active := []struct {
		t    time.Duration
		want int
	}{
		{0, 0}, {999 * time.Millisecond, 0}, {s, 1}, {5500 * time.Millisecond, 5}, {10 * s, 10},
		{15 * s, 10}, {20 * s, 10}, {20*s + 499*time.Millisecond, 10}, {20*s + 500*time.Millisecond, 9},
		{22 * s, 6}, {23 * s, 4}, {time.Hour, 4}, {-s, 0},
	}
	for _, tt := range active {
		if got := r.Active(tt.t); got != tt.want {
			t.Errorf("Active(%v) = %d, want %d", tt.t, got, tt.want)
		}
	}
	next := []struct {
		u      int
		t      time.Duration
		want   time.Duration
		wantOK bool
	}{
		{0, 0, s, true},           // the first user joins at 1 s
		{4, 2 * s, 5 * s, true},   // user 4 (the fifth) at 5 s
		{9, 0, 10 * s, true},      // the tenth at the end of the ramp
		{3, 12 * s, 12 * s, true}, // active while held
		{9, 21 * s, 0, false},     // left at 20.5 s, never back
		{3, 30 * s, 30 * s, true}, // one of the last 4
		{10, 0, 0, false},         // there are never 11
		{2, 700 * time.Millisecond, 3 * s, true},
	}
	for _, tt := range next {
		got, ok := r.Next(tt.u, tt.t)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Next(%d, %v) = %v, %v; want %v, %v", tt.u, tt.t, got, ok, tt.want, tt.wantOK)
		}
	}
	if r.Max() != 10 || r.Duration() != 23*s {
		t.Errorf("Max %d, Duration %v", r.Max(), r.Duration())
	}
	// Down, then up again: user 5 leaves, then returns on the second rise.
	r2, _ := NewVURamp(8, []VUStage{{4 * s, 0}, {4 * s, 8}})
	// 8 → 0 in 4 s, 0 → 8 in 4 s: the sixth user is back once 6 are, at 7 s.
	if got, ok := r2.Next(5, 2*s); !ok || got != 7*s {
		t.Errorf("Next(5, 2s) on the way down and up = %v, %v; want 7s", got, ok)
	}
	for _, bad := range [][]VUStage{nil, {{0, 5}}, {{s, -1}}} {
		if _, err := NewVURamp(1, bad); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}

func TestVURampPlateaus(t *testing.T) {
	t.Parallel()
	s := time.Second
	r, err := NewVURamp(0, []VUStage{{2 * s, 2}, {3 * s, 2}, {s, 2}, {2 * s, 8}, {4 * s, 8}, {s, 0}, {s, 0}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Plateau{{From: 2 * s, To: 6 * s, Users: 2}, {From: 8 * s, To: 12 * s, Users: 8}}
	got := r.Plateaus()
	if len(got) != len(want) {
		t.Fatalf("plateaus %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("plateaus %+v, want %+v", got, want)
		}
	}
}
