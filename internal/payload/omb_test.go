package payload

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

// TestWholeFile: an OpenMessaging Benchmark payload file is one value,
// newlines and all (payload.File would split it into records).
func TestWholeFile(t *testing.T) {
	t.Parallel()
	data := []byte("line one\nline two\n\x00\xff binary\n")
	path := filepath.Join(t.TempDir(), "payload.data")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := WholeFile(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Source{src, src.Clone(7)} {
		for i := int64(0); i < 3; i++ {
			if v := s.Value(i); !bytes.Equal(v, data) {
				t.Fatalf("value %d = %q, want the whole file", i, v)
			}
		}
		if s.MaxSize() != len(data) {
			t.Errorf("MaxSize %d, want %d", s.MaxSize(), len(data))
		}
	}
	// Split on newlines, the same file is three records: the cache keeps
	// the two readings apart.
	if _, n, err := File(path, "\n", 1); err != nil || n != 3 {
		t.Errorf("split: %d records, %v", n, err)
	}
	if _, err := WholeFile(filepath.Join(t.TempDir(), "missing"), 1); err == nil {
		t.Error("a missing file read")
	}
}

// TestPool: OMB's randomized payloads: n values made once, the first
// ratio of each (rounded down) random bytes, the rest zeros, shared by
// sources of the same shape.
func TestPool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		size        int
		ratio       float64
		n           int
		wantRandom  int // bytes at the front that may be nonzero
		wantErrPart string
	}{
		{"half random", 1024, 0.5, 1000, 512, ""},
		{"rounded down as Java's (int)", 10, 0.55, 3, 5, ""},
		{"all zeros", 100, 0, 10, 0, ""},
		{"all random", 64, 1, 4, 64, ""},
		{"ratio out of range", 10, 1.5, 3, 0, "random ratio"},
		{"no values", 10, 0.5, 0, 0, "a pool of 0"},
		{"over 1 GiB", 1 << 20, 0.5, 2000, 0, "1 GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, err := Pool(tt.size, tt.ratio, tt.n, 42)
			if tt.wantErrPart != "" {
				if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.wantErrPart)) {
					t.Fatalf("err %v, want %q", err, tt.wantErrPart)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			distinct := map[string]bool{}
			for i := int64(0); i < int64(20*tt.n); i++ {
				v := src.Value(i)
				if len(v) != tt.size {
					t.Fatalf("value of %d bytes, want %d", len(v), tt.size)
				}
				if !allZero(v[tt.wantRandom:]) {
					t.Fatalf("bytes after the first %d are not zeros: %x", tt.wantRandom, v)
				}
				if tt.wantRandom >= 8 && allZero(v[:tt.wantRandom]) {
					t.Fatalf("the random part is zeros")
				}
				distinct[string(v)] = true
			}
			if tt.wantRandom >= 8 && len(distinct) != tt.n {
				t.Errorf("%d distinct values picked in %d records, want the pool's %d", len(distinct), 20*tt.n, tt.n)
			}
			// Another source of the same shape sends the same values.
			other, _ := Pool(tt.size, tt.ratio, tt.n, 7)
			if v := other.Clone(3).Value(0); !distinct[string(v)] {
				t.Errorf("a second source's value is not one of the pool's")
			}
		})
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// TestNewKeysFormat: OMB's keys are 10 base64url characters (7 random
// bytes); KEY_ROUND_ROBIN takes them in turn, RANDOM_NANO at random.
func TestNewKeysFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, dist, format string
		wantLen            int
		wantTurns          bool
	}{
		{"omb in turn", KeysSequential, KeysOMB, 10, true},
		{"omb at random", KeysUniform, KeysOMB, 10, false},
		{"decimal", KeysSequential, KeysDecimal, 0, true},
		{"decimal by default", KeysSequential, "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k, err := NewKeysFormat(10_000, tt.dist, tt.format, 5)
			if err != nil {
				t.Fatal(err)
			}
			first := map[string]int{}
			for i := 0; i < 20_000; i++ {
				key := string(k.Key())
				if tt.wantLen > 0 {
					if len(key) != tt.wantLen {
						t.Fatalf("key %q: %d characters, want %d", key, len(key), tt.wantLen)
					}
					if b, err := base64.RawURLEncoding.DecodeString(key); err != nil || len(b) != 7 {
						t.Fatalf("key %q is not 7 bytes of base64url: %v", key, err)
					}
				}
				if j, seen := first[key]; !seen {
					first[key] = i
				} else if tt.wantTurns && i-j != 10_000 {
					t.Fatalf("key %q again after %d records, want 10000 (in turn)", key, i-j)
				}
			}
			// In turn every key comes up; at random, 20,000 draws find
			// about 10000 × (1 − e⁻²) = 8647 of them.
			if want := map[bool]int{true: 10_000, false: 8_000}[tt.wantTurns]; len(first) < want {
				t.Errorf("%d distinct keys of 10000, want at least %d", len(first), want)
			}
			if tt.format == KeysOMB && k.MaxSize() != 10 {
				t.Errorf("MaxSize %d", k.MaxSize())
			}
		})
	}
	if _, err := NewKeysFormat(10, KeysUniform, "hex", 1); err == nil {
		t.Error("an unknown format was taken")
	}
}
