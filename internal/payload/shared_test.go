package payload

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRandomSharedAndLazy: regression: every Random made and filled its
// own 32 MiB when it was built, so checking a plan of 1,000 scenarios
// (--dry-run) took 32 GB and 80 scenarios 2.5 GB. Building sources
// allocates no letters; the first value makes them, and sources of one
// seed share them, clones and record sizes included.
func TestRandomSharedAndLazy(t *testing.T) {
	const seed = 0x5eed10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	srcs := make([]Source, 0, 1000)
	for i := range 1000 {
		src, err := Random(1+i%1000, seed)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("building 1000 sources allocated %d MiB", grew>>20)
	}
	first := srcs[0].(*stream)
	if first.letters != nil {
		t.Fatal("a source holds letters before its first value")
	}
	for i := range 1000 {
		srcs = append(srcs, srcs[i].Clone(uint64(i))) // as clients at the start of a run
	}
	for _, src := range srcs {
		src.Value(0)
		if st := src.(*stream); st.letters != first.acquire() {
			t.Fatalf("a source of size %d has letters of its own", st.size)
		}
	}
	other, _ := Random(100, seed+1)
	if other.(*stream).acquire() == first.acquire() {
		t.Fatal("another seed shares the letters")
	}
	runtime.KeepAlive(srcs)
}

// TestRandomSizeBounded: regression: --record-size 9223372036854775807
// panicked (integer divide by zero) making its values.
func TestRandomSizeBounded(t *testing.T) {
	t.Parallel()
	for _, size := range []int{math.MaxInt64, math.MaxInt64/2 + 1, MaxRecordSize + 1} {
		if _, err := Random(size, 1); err == nil || !strings.Contains(err.Error(), "1 GiB") {
			t.Errorf("Random(%d): err = %v, want the 1 GiB limit", size, err)
		}
		if _, err := RandomRatio(size, 0.5, 1); err == nil {
			t.Errorf("RandomRatio(%d): want an error", size)
		}
	}
}

// TestFileBounds: regression: a 69 MB payload file whose delimiter
// matched almost every byte took over 4.8 GB (a string and a copy per
// record). A file past MaxPayloadRecords records or MaxPayloadFile bytes
// is refused naming the limit; a file is read once however many sources
// use it.
func TestFileBounds(t *testing.T) { // not parallel: it counts allocations
	dir := t.TempDir()
	many := filepath.Join(dir, "many")
	if err := os.WriteFile(many, []byte(strings.Repeat("a,", MaxPayloadRecords)+"b"), 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxPayloadFile + 1); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	f.Close()
	tests := []struct {
		name, path, delim, want string
	}{
		{"records, literal delimiter", many, ",", "more than 10000000 records"},
		{"records, regular expression", many, "[,;]", "more than 10000000 records"},
		{"bytes", huge, "\n", "larger than 1 GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if raceEnabled && tt.delim == "[,;]" {
				t.Skip("10M regular expression matches take a minute with the race detector")
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err := File(tt.path, tt.delim, 1)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one saying %q", err, tt.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<30 && !raceEnabled { // in all, garbage included: the old code kept 4.8 GB
				t.Errorf("refusing it allocated %d MiB", grew>>20)
			}
		})
	}

	shared := filepath.Join(dir, "shared")
	if err := os.WriteFile(shared, []byte("x\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, n, err := File(shared, "\n", 1)
	if err != nil || n != 2 {
		t.Fatalf("n %d, err %v", n, err)
	}
	b, _, _ := File(shared, "\n", 2)
	if a.(*pool).recs != b.(*pool).recs {
		t.Error("the same file is read twice")
	}
}
