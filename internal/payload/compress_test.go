package payload

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// codecs compress a batch with the libraries franz-go uses, except gzip:
// klauspost's gzip stores blocks it guesses incompressible, which makes it
// a poor judge of the data, so the standard library's deflate (as Java's
// zlib) stands in for it.
var codecs = map[string]func([]byte) int{
	"gzip": func(b []byte) int {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
		w.Write(b)
		w.Close()
		return buf.Len()
	},
	"snappy": func(b []byte) int { return len(s2.EncodeSnappy(nil, b)) },
	"lz4": func(b []byte) int {
		var buf bytes.Buffer
		w := lz4.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Len()
	},
	"zstd": func(b []byte) int {
		enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		defer enc.Close()
		return len(enc.EncodeAll(b, nil))
	},
}

// batch concatenates values as a producer batch holds them, up to n bytes.
func batch(n int, next func() []byte) []byte {
	out := make([]byte, 0, n)
	for len(out) < n {
		v := next()
		out = append(out, v[:min(len(v), n-len(out))]...)
	}
	return out
}

// TestRandomCompressesLikeFreshLetters: regression: values came from a pool
// of 1024, so a batch repeated them and compressed to 0.087 of its size
// with zstd and 1 MiB batches where the Java tool's fresh random letters
// give 0.6: every compressed run overstated throughput. A batch of kbench
// values must compress no better than fresh A-Z letters, for every codec,
// batch size and record size.
func TestRandomCompressesLikeFreshLetters(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 80 batches")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 10, 100, 1000, 10000} {
		src, err := Random(size, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, batchBytes := range []int{16 << 10, 1 << 20} {
			src := ForBatches(src, batchBytes) // as the producer's batch.size asks
			ours := batch(batchBytes, func() []byte { return src.Value(0) })
			fresh := batch(batchBytes, func() []byte {
				v := make([]byte, size)
				for i := range v {
					v[i] = byte('A' + rng.IntN(26))
				}
				return v
			})
			for name, compress := range codecs {
				t.Run(fmt.Sprintf("%s/%dB/%dKiB", name, size, batchBytes>>10), func(t *testing.T) {
					got := float64(compress(ours)) / float64(len(ours))
					want := float64(compress(fresh)) / float64(len(fresh))
					if got < want-0.01 {
						t.Errorf("kbench values compress to %.3f of their size, fresh A-Z letters to %.3f", got, want)
					}
				})
			}
		}
	}
}
