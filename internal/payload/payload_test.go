package payload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

func TestRandom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		size    int
		wantBuf int
	}{
		{1, minLetters},
		{100, minLetters},
		{minLetters / 2, minLetters},
		{1 << 20, 2 << 20},
		{32 << 20, 64 << 20},
	}
	for _, tt := range tests {
		src, err := Random(tt.size, 1)
		if err != nil {
			t.Fatalf("Random(%d): %v", tt.size, err)
		}
		st := src.(*stream)
		if n := len(st.acquire().buf); n != tt.wantBuf {
			t.Errorf("Random(%d): buffer of %d bytes, want %d", tt.size, n, tt.wantBuf)
		}
		for i := int64(0); i < 50; i++ {
			v := src.Value(i)
			if len(v) != tt.size || cap(v) != tt.size {
				t.Fatalf("Random(%d).Value: len %d cap %d", tt.size, len(v), cap(v))
			}
			for _, c := range v[:min(len(v), 64)] {
				if c < 'A' || c > 'Z' {
					t.Fatalf("Random(%d).Value: byte %q is not A-Z", tt.size, c)
				}
			}
		}
		if src.MaxSize() != tt.size {
			t.Errorf("MaxSize = %d, want %d", src.MaxSize(), tt.size)
		}
	}
	for _, bad := range []int{0, -1} {
		if _, err := Random(bad, 1); err == nil {
			t.Errorf("Random(%d): want error", bad)
		}
	}
}

// TestRandomValuesDisjoint: consecutive values never share bytes until the
// buffer wraps, so a batch holds no repeated data for a compressor to find.
func TestRandomValuesDisjoint(t *testing.T) {
	t.Parallel()
	src, err := Random(1000, 7)
	if err != nil {
		t.Fatal(err)
	}
	st := src.(*stream)
	waitFilled(t, st)
	buf := st.letters.buf
	seen := map[int]bool{}
	for i := int64(0); i < int64(len(buf)/1000); i++ {
		v := src.Value(i)
		off := int(uintptr(unsafe.Pointer(&v[0])) - uintptr(unsafe.Pointer(&buf[0])))
		if off%1000 != 0 || seen[off] {
			t.Fatalf("value %d at offset %d overlaps another", i, off)
		}
		seen[off] = true
	}
	if a, b := src.Clone(1).Value(0), src.Clone(2).Value(0); string(a) == string(b) {
		t.Fatal("two clones start with the same value")
	}
}

// waitFilled waits until the background fill of st's letters is done.
func waitFilled(t *testing.T, st *stream) {
	t.Helper()
	st.acquire()
	deadline := time.Now().Add(time.Minute)
	for int(st.letters.ready.Load()) < len(st.letters.buf) {
		if time.Now().After(deadline) {
			t.Fatalf("letters filled to %d of %d after a minute", st.letters.ready.Load(), len(st.letters.buf))
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRandomWhileFilling: values are handed out while the letters are still
// being filled in the background; every one is letters only (none of the
// buffer's zeros), and reads within the filled part only (the race
// detector checks the hand-over). Once the fill is done the stream uses
// the whole buffer.
func TestRandomWhileFilling(t *testing.T) {
	t.Parallel()
	src, err := Random(100, 0x5eed03) // a seed no other test uses: its letters are made here
	if err != nil {
		t.Fatal(err)
	}
	src = ForBatches(src, 16<<20) // 32 MiB of letters: most filled in the background
	st := src.(*stream)
	if st.letters != nil {
		t.Fatal("Random made its letters before the first value")
	}
	st.acquire()
	if ready := st.letters.ready.Load(); ready < firstFill {
		t.Fatalf("Random returned with %d bytes filled, want at least %d", ready, firstFill)
	}
	clones := []Source{src, src.Clone(1), src.Clone(2)}
	var wg sync.WaitGroup
	for _, c := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); i < 400_000; i++ { // 40 MB: past the buffer's end
				for _, b := range c.Value(i) {
					if b < 'A' || b > 'Z' {
						t.Errorf("value %d has byte %q: read beyond the filled letters", i, b)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	waitFilled(t, st)
	st.off = len(st.letters.buf) - 100
	if v := st.Value(0); &v[0] != &st.letters.buf[len(st.letters.buf)-100] {
		t.Error("once filled, the stream does not reach the buffer's end")
	}
	if !st.full {
		t.Error("once filled, the stream still loads the fill mark")
	}
}

func TestFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name      string
		content   string
		delimiter string
		want      []string
		wantErr   error
	}{
		{"newline", "a\nbb\nccc\n", "\n", []string{"a", "bb", "ccc"}, nil},
		{"blank lines skipped", "a\n\nb", "\n", []string{"a", "b"}, nil},
		{"custom literal", `{"x":1}|{"x":2}`, `\|`, []string{`{"x":1}`, `{"x":2}`}, nil},
		{"regex", "a,b;c", "[,;]", []string{"a", "b", "c"}, nil},
		{"no trailing newline", "one", "\n", []string{"one"}, nil},
		{"empty", "", "\n", nil, ErrEmptyFile},
		{"only delimiters", "\n\n\n", "\n", nil, ErrEmptyFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := write(strings.ReplaceAll(tt.name, " ", "_"), tt.content)
			src, n, err := File(path, tt.delimiter, 1)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n != len(tt.want) {
				t.Fatalf("read %d records, want %d", n, len(tt.want))
			}
			got := map[string]bool{}
			for i := int64(0); i < 500; i++ {
				got[string(src.Value(i))] = true
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("value %q never handed out; got %v", w, got)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("got values %v, want exactly %v", got, tt.want)
			}
		})
	}
	if _, _, err := File(filepath.Join(dir, "missing"), "\n", 1); !errors.Is(err, ErrEmptyFile) {
		t.Fatalf("missing file: err = %v", err)
	}
	if _, _, err := File(write("x", "a"), "(", 1); err == nil || !strings.Contains(err.Error(), "regular expression") {
		t.Fatalf("bad delimiter: err = %v", err)
	}
}

func TestMonotonic(t *testing.T) {
	t.Parallel()
	src := Monotonic(1000)
	for i, want := range map[int64]string{0: "0", 9: "9", 999: "999", 12345: "12345"} {
		if got := string(src.Value(i)); got != want {
			t.Fatalf("Value(%d) = %q, want %q", i, got, want)
		}
	}
	for n, want := range map[int64]int{1: 1, 10: 1, 1000: 3, 1001: 4, 0: 19} {
		if got := Monotonic(n).MaxSize(); got != want {
			t.Errorf("Monotonic(%d).MaxSize() = %d, want %d", n, got, want)
		}
	}
	a, b := src.Value(1), src.Value(2)
	if &a[0] == &b[0] {
		t.Fatal("values must not share memory: the client holds each until acked")
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	k, err := NewKeys(10, 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		seen[string(k.Key())] = true
	}
	if len(seen) != 10 {
		t.Fatalf("saw %d distinct keys, want 10: %v", len(seen), seen)
	}
	if k.MaxSize() != 1 {
		t.Fatalf("MaxSize = %d", k.MaxSize())
	}
	for _, bad := range []int{0, -3, MaxKeyRange + 1} {
		if _, err := NewKeys(bad, 1); err == nil {
			t.Errorf("NewKeys(%d): want error", bad)
		}
	}
}

// TestFileDelimiterMatchingEmpty: regression: a delimiter that can match
// the empty string (x*, |, ^) split a file into 1-byte records: 888 MB of
// memory and an unresponsive process on a 66 MB file. It is refused before
// splitting.
func TestFileDelimiterMatchingEmpty(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "p.txt")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"x*", "|", "^", `\s*`, "(a|)"} {
		if _, _, err := File(path, d, 1); err == nil || !strings.Contains(err.Error(), "matches the empty string") {
			t.Errorf("delimiter %q: err %v, want it refused", d, err)
		}
	}
	if _, n, err := File(path, `\s*\n`, 1); err != nil || n != 2 {
		t.Errorf(`delimiter \s*\n: %d records, %v; want 2`, n, err)
	}
}

func TestKeysDistributions(t *testing.T) {
	t.Parallel()
	count := func(dist string) map[string]int {
		k, err := NewKeysDist(1000, dist, 1)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for i := 0; i < 100000; i++ {
			seen[string(k.Key())]++
		}
		return seen
	}
	uni, seq, zipf := count(KeysUniform), count(KeysSequential), count(KeysZipfian)
	if len(uni) != 1000 || uni["0"] > 200 {
		t.Errorf("uniform: %d keys, key 0 %d times", len(uni), uni["0"])
	}
	for k, n := range seq {
		if n != 100 {
			t.Fatalf("sequential: key %s %d times, want 100", k, n)
		}
	}
	if zipf["0"] < 10000 || zipf["0"] < 10*zipf["100"] {
		t.Errorf("zipfian: key 0 %d times, key 100 %d times: want a hot key", zipf["0"], zipf["100"])
	}
	if _, err := NewKeysDist(10, "normal", 1); err == nil {
		t.Error("an unknown distribution must be refused")
	}
}

func TestRandomRatio(t *testing.T) {
	t.Parallel()
	src, err := RandomRatio(100, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 1000; i++ {
		v := src.Value(i)
		for j, b := range v {
			if (j < 30) != (b != 0) {
				t.Fatalf("value %d byte %d = %d: want 30 random letters then zeros", i, j, b)
			}
		}
	}
	if _, err := RandomRatio(100, 1.5, 1); err == nil {
		t.Error("ratio 1.5 must be refused")
	}
}

// TestForBatches: the letters are 1 MiB unless a record or the producer's
// batches need more (a 32 MiB buffer for every run made the collector, at
// GOGC=400, keep some 160 MB of heap); larger batches get letters of twice
// their size, rounded up to a power of two so that neighbouring batch sizes
// share them, and other sources pass through unchanged.
func TestForBatches(t *testing.T) {
	t.Parallel()
	tests := []struct{ size, batch, want int }{
		{100, 16 << 10, minLetters},
		{100, 512 << 10, minLetters},
		{100, 1 << 20, 2 << 20},
		{100, 1<<20 + 12, 4 << 20},
		{3 << 20, 1 << 20, 6 << 20},
	}
	for _, tt := range tests {
		src, err := Random(tt.size, 0x5eed11)
		if err != nil {
			t.Fatal(err)
		}
		st := ForBatches(src, tt.batch).(*stream)
		if st.key.n != tt.want {
			t.Errorf("ForBatches(Random(%d), %d): %d bytes of letters, want %d", tt.size, tt.batch, st.key.n, tt.want)
		}
		if st.size != tt.size || st.seed != 0x5eed11 {
			t.Errorf("ForBatches changed the size or seed: %d, %x", st.size, st.seed)
		}
	}
	m := Monotonic(10)
	if got := ForBatches(m, 1<<20); got != m {
		t.Error("ForBatches changed a monotonic source")
	}
}
