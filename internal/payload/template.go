package payload

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
)

// Template is a JSON value rendered afresh for every record: objects,
// arrays and literals as written, generators filled in per record. The
// plan package reads it from YAML and checks it; Compile turns it into a
// Source.
type Template struct {
	Kind   TemplateKind
	Fields []TemplateField // KindObject, in order
	Items  []Template      // KindArray
	JSON   string          // KindLiteral: the value, JSON-encoded
	Gen    Generator       // KindGenerator
}

// TemplateKind is what a Template node is.
type TemplateKind int

// The kinds of template nodes.
const (
	KindLiteral TemplateKind = iota
	KindObject
	KindArray
	KindGenerator
)

// TemplateField is one field of an object.
type TemplateField struct {
	Name  string
	Value Template
}

// Generator makes one value per record. Type is one of the names of
// Generators; the other fields are its parameters.
type Generator struct {
	Type     string
	Min, Max float64  // random_int, random_float
	Length   int      // random_string: characters; bytes: letters
	Start    int64    // sequence: the first record's number
	Format   string   // now: epoch_millis, epoch_micros, epoch_nanos, rfc3339
	Values   []string // one_of: JSON-encoded values
	Weights  []float64
	// Params are a faker generator's parameters (Type "faker.<name>").
	Params map[string]string
}

// piece is a compiled template: static bytes, or a generator.
type piece struct {
	static []byte
	gen    *compiledGen
}

type compiledGen struct {
	Generator
	cumWeights []float64 // one_of
	faker      *fakerGen
	maxLen     int
	render     func(s *templateSource, buf []byte, g *compiledGen, i int64, now time.Time) []byte
	clock      bool // renders the record's time
}

// Renderer is a Source that renders every value (a template): a producer
// that reads the clock for each record anyway, and can reuse a value's
// bytes once the record completes, renders into its own buffers at its
// own clock reading instead of calling Value.
type Renderer interface {
	Source
	// AppendValue appends record i's value to dst, with now as the time
	// the now generator renders; it allocates only when dst has fewer
	// than MaxSize bytes free (or a faker value runs long).
	AppendValue(dst []byte, i int64, now time.Time) []byte
}

// templateSource renders one value per record. franz-go holds values until
// acknowledged, so Value cuts each from a chunk of its own (one allocation
// per few hundred records) that no later value overwrites;
// AppendValue renders into the caller's buffer (the producer's slabs,
// reused once their records complete). Everything rendering touches is
// the source's own (its random stream, its faker, its chunk): clients
// render without sharing a lock or a random source.
type templateSource struct {
	pieces  []piece
	maxSize int
	rng     *wyrand // uuids, strings and numbers
	seed    uint64
	faker   *gofakeit.Faker // made when a faker generator is used
	clock   bool            // a generator renders the record's time
	chunk   []byte          // Value's: values are cut from its free capacity
	chunks  int             // how many Value has made
	// ms is the last epoch_millis rendered, msText[:msDigits] its digits.
	ms       int64
	msText   [20]byte
	msDigits int
}

// Value's chunks start at firstChunk bytes and double up to chunkBytes (or
// are a value's MaxSize, when larger): a virtual user, one of up to
// 100,000 with a source each, that sends a record now and then holds
// little.
const (
	firstChunk = 4 << 10
	chunkBytes = 64 << 10
)

// CompileTemplate checks and compiles t. seed makes the random parts
// reproducible (now is the clock, always): give a fresh one (NewSeed) for
// values no other run sends.
func CompileTemplate(t Template, seed uint64) (Source, error) {
	var pieces []piece
	if err := compile(t, &pieces); err != nil {
		return nil, err
	}
	// Merge adjacent static pieces, constants included: fewer steps per
	// record.
	var merged []piece
	for _, p := range pieces {
		if p.gen != nil && p.gen.Type == "constant" {
			p = piece{static: []byte(p.gen.Values[0])}
		}
		if n := len(merged); n > 0 && p.gen == nil && merged[n-1].gen == nil {
			merged[n-1].static = append(merged[n-1].static, p.static...)
			continue
		}
		merged = append(merged, p)
	}
	size := 0
	for _, p := range merged {
		size += len(p.static)
		if p.gen != nil {
			size += p.gen.maxLen
		}
	}
	return newTemplateSource(merged, size, seed), nil
}

func newTemplateSource(pieces []piece, size int, seed uint64) *templateSource {
	s := &templateSource{pieces: pieces, maxSize: size, seed: seed, rng: newWyrand(seed)}
	for _, p := range pieces {
		if p.gen != nil && p.gen.faker != nil && s.faker == nil {
			s.faker = gofakeit.NewFaker(chacha(Mix(seed, 0x66616b6572)), false) // one goroutine per source: no lock
		}
		s.clock = s.clock || p.gen != nil && p.gen.clock
	}
	return s
}

func compile(t Template, out *[]piece) error {
	static := func(s string) { *out = append(*out, piece{static: []byte(s)}) }
	switch t.Kind {
	case KindLiteral:
		static(t.JSON)
	case KindObject:
		static("{")
		for i, f := range t.Fields {
			if i > 0 {
				static(",")
			}
			static(strconv.Quote(f.Name) + ":")
			if err := compile(f.Value, out); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		static("}")
	case KindArray:
		static("[")
		for i, it := range t.Items {
			if i > 0 {
				static(",")
			}
			if err := compile(it, out); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		static("]")
	case KindGenerator:
		g, err := compileGen(t.Gen)
		if err != nil {
			return err
		}
		*out = append(*out, piece{gen: g})
	}
	return nil
}

// compileGen checks g (CheckGenerator) and makes it ready to render.
func compileGen(g Generator) (*compiledGen, error) {
	if p := CheckGenerator(g); p != nil {
		return nil, fmt.Errorf("%s: %w", g.Type, p)
	}
	c := &compiledGen{Generator: g}
	if name, ok := strings.CutPrefix(g.Type, FakerPrefix); ok {
		f, err := newFakerGen(name, g.Params)
		if err != nil {
			return nil, err
		}
		// Faker values vary in length; the buffer grows when needed, and
		// MaxSize (the producer's record limit) allows for a long one.
		c.faker, c.maxLen = f, 256
		c.render = func(s *templateSource, buf []byte, g *compiledGen, _ int64, _ time.Time) []byte {
			return g.faker.render(buf, s.faker)
		}
		return c, nil
	}
	gen := generators[g.Type]
	c.maxLen, c.render, c.clock = gen.maxLen(g), gen.render, gen.clock
	if gen.prepare != nil {
		gen.prepare(c)
	}
	return c, nil
}

// Value renders record i into the free end of the source's chunk; the
// slice returned ends at its own length, so the next value, cut after it,
// cannot reach it.
func (s *templateSource) Value(i int64) []byte {
	if cap(s.chunk)-len(s.chunk) < s.maxSize {
		s.chunk = make([]byte, 0, max(min(firstChunk<<s.chunks, chunkBytes), s.maxSize))
		s.chunks = min(s.chunks+1, 8)
	}
	var now time.Time
	if s.clock {
		now = time.Now()
	}
	n := len(s.chunk)
	v := s.AppendValue(s.chunk[n:n:cap(s.chunk)], i, now)
	if cap(v) == cap(s.chunk)-n {
		s.chunk = s.chunk[:n+len(v)]
	} // else it outgrew the chunk (a long faker value): a slice of its own
	return v[:len(v):len(v)]
}

// AppendValue is Renderer's: the pieces in order, static bytes copied,
// generators rendered in place.
func (s *templateSource) AppendValue(dst []byte, i int64, now time.Time) []byte {
	for k := range s.pieces {
		p := &s.pieces[k]
		if p.gen == nil {
			dst = append(dst, p.static...)
			continue
		}
		dst = p.gen.render(s, dst, p.gen, i, now)
	}
	return dst
}

const (
	alnum   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// alphabet is the characters random strings are drawn from, in tables
// that an index masked to their size reads without a bounds check: one
// character a byte, and every ordered pair of characters (size² of them,
// when that is at most 4096) a uint16 holding the two bytes.
type alphabet struct {
	size  uint32
	chars [256]byte
	pairs [4096]uint16 // pairs[i*size+j] = chars[i], chars[j] (little-endian)
	psize uint64       // size², 0 when the pairs do not fit
}

func newAlphabet(chars string) *alphabet {
	a := &alphabet{size: uint32(len(chars))}
	copy(a.chars[:], chars)
	if n := len(chars) * len(chars); n <= len(a.pairs) {
		a.psize = uint64(n)
		for i := range len(chars) {
			for j := range len(chars) {
				a.pairs[i*len(chars)+j] = uint16(chars[i]) | uint16(chars[j])<<8
			}
		}
	}
	return a
}

var (
	alnumChars  = newAlphabet(alnum)
	letterChars = newAlphabet(letters)
)

// appendRandom appends n characters drawn from a. Eight come from each
// 64-bit random number x, two at a time: x × size² (128 bits) gives a pair
// in its high word and leaves its low word, the fraction, for the next
// pair; the fourth pair still rests on 64 − 3×12 = 28 random bits, a bias
// under size²/2^28 (0.0015% for 62 characters). Two numbers' chains run
// side by side, and a pair is one table read and one two-byte store: a
// 40-character string costs five numbers, not seven, and twenty lookups,
// not forty. The last few characters are drawn one at a time.
func (s *templateSource) appendRandom(buf []byte, n int, a *alphabet) []byte {
	if n <= 0 {
		return buf
	}
	start := len(buf)
	buf = grow(buf, n)
	out := buf[start:]
	if ps := a.psize; ps > 0 {
		put := func(o []byte, p uint64) {
			v := a.pairs[p&4095]
			o[0], o[1] = byte(v), byte(v>>8)
		}
		// Two numbers' chains written out side by side: the same as a
		// loop over j, which measured 5% slower (62.5 against 59 ns a
		// study message: the compiler does not unroll it).
		for len(out) >= 16 {
			h, l := bits.Mul64(s.rng.Uint64(), ps)
			g, k := bits.Mul64(s.rng.Uint64(), ps)
			put(out[0:2], h)
			put(out[8:10], g)
			h, l = bits.Mul64(l, ps)
			g, k = bits.Mul64(k, ps)
			put(out[2:4], h)
			put(out[10:12], g)
			h, l = bits.Mul64(l, ps)
			g, k = bits.Mul64(k, ps)
			put(out[4:6], h)
			put(out[12:14], g)
			h, _ = bits.Mul64(l, ps)
			g, _ = bits.Mul64(k, ps)
			put(out[6:8], h)
			put(out[14:16], g)
			out = out[16:]
		}
		for len(out) >= 8 {
			h, l := bits.Mul64(s.rng.Uint64(), ps)
			for j := 0; j < 8; j += 2 {
				put(out[j:j+2], h)
				h, l = bits.Mul64(l, ps)
			}
			out = out[8:]
		}
	}
	size := uint64(a.size)
	for len(out) > 0 {
		// Up to six at a time from the two 32-bit halves of a number, each
		// character the integer part of a half times the size.
		x := s.rng.Uint64()
		h, l := (x>>32)*size, (x&0xffffffff)*size
		for j := range min(len(out), 6) {
			if j%2 == 0 {
				out[j], h = a.chars[byte(h>>32)], (h&0xffffffff)*size
			} else {
				out[j], l = a.chars[byte(l>>32)], (l&0xffffffff)*size
			}
		}
		out = out[min(len(out), 6):]
	}
	return buf
}

// grow extends buf by n bytes, to be written.
func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) < n {
		buf = append(buf[:cap(buf)], make([]byte, len(buf)+n-cap(buf))...)[:len(buf)]
	}
	return buf[:len(buf)+n]
}

// uint64n is a uniform number in [0, n), n > 0, drawn as math/rand/v2's
// Rand.Uint64N draws it (the same values for the same stream), without
// the interface call of a rand.Rand.
func (s *templateSource) uint64n(n uint64) uint64 {
	if n&(n-1) == 0 {
		return s.rng.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(s.rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.rng.Uint64(), n)
		}
	}
	return hi
}

// float64 is a uniform number in [0, 1), as math/rand/v2's Rand.Float64.
func (s *templateSource) float64() float64 {
	return float64(s.rng.Uint64()<<11>>11) / (1 << 53)
}

func (s *templateSource) MaxSize() int { return s.maxSize }

// Clone gives another client its own random stream over the same
// template, derived from this source's seed and seed (clients do not send
// the same values in step; the same seeds give the same records run after
// run).
func (s *templateSource) Clone(seed uint64) Source {
	return newTemplateSource(s.pieces, s.maxSize, Mix(s.seed, seed))
}

var _ Renderer = (*templateSource)(nil)

// rawSource renders a template for a key or a header: as JSON, except
// that a template that is a single string gives the string's characters
// without quotes (a uuid key is the 36 characters, not a JSON string).
type rawSource struct{ Source }

// CompileRaw compiles t for keys and headers (see rawSource).
func CompileRaw(t Template, seed uint64) (Source, error) {
	src, err := CompileTemplate(t, seed)
	if err != nil {
		return nil, err
	}
	return rawSource{src}, nil
}

func (r rawSource) Value(i int64) []byte {
	v := r.Source.Value(i)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

func (r rawSource) Clone(seed uint64) Source { return rawSource{r.Source.Clone(seed)} }
