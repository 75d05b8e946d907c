package payload

import (
	"fmt"
	"math/rand/v2"
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

// Generators are the generator types, as the virtual-users study's k6
// templates name them, with kbench's additions.
var Generators = []string{"uuid", "constant", "random_string", "random_int", "random_float", "bool", "sequence", "one_of", "bytes", "now"}

// NowFormats are the formats of the now generator.
var NowFormats = []string{"epoch_millis", "epoch_micros", "epoch_nanos", "rfc3339"}

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
}

// templateSource renders one value per record into a buffer of its own:
// franz-go holds values until acknowledged, so each is a fresh slice (the
// one allocation per record).
type templateSource struct {
	pieces  []piece
	maxSize int
	rng     *rand.Rand // ChaCha8: uuids and strings from a cryptographically strong stream
	seed    uint64
	faker   *gofakeit.Faker // made when a faker generator is used
	fakes   bool
}

// CompileTemplate checks and compiles t. seed makes the random parts
// reproducible (now is the clock, always): give a fresh one (NewSeed) for
// values no other run sends.
func CompileTemplate(t Template, seed uint64) (Source, error) {
	var pieces []piece
	if err := compile(t, &pieces); err != nil {
		return nil, err
	}
	// Merge adjacent static pieces: fewer steps per record.
	var merged []piece
	for _, p := range pieces {
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
	s := &templateSource{pieces: pieces, maxSize: size, seed: seed, rng: rand.New(chacha(seed))}
	for _, p := range pieces {
		if p.gen != nil && p.gen.faker != nil && s.faker == nil {
			s.fakes = true
			s.faker = gofakeit.NewFaker(chacha(Mix(seed, 0x66616b6572)), false) // one goroutine per source: no lock
		}
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

func compileGen(g Generator) (*compiledGen, error) {
	c := &compiledGen{Generator: g}
	if name, ok := strings.CutPrefix(g.Type, FakerPrefix); ok {
		f, err := newFakerGen(name, g.Params)
		if err != nil {
			return nil, err
		}
		// Faker values vary in length; the buffer grows when needed, and
		// MaxSize (the producer's record limit) allows for a long one.
		c.faker, c.maxLen = f, 256
		return c, nil
	}
	switch g.Type {
	case "uuid":
		c.maxLen = 38
	case "constant":
		if len(g.Values) != 1 {
			return nil, fmt.Errorf("constant needs one value")
		}
		c.maxLen = len(g.Values[0])
	case "random_string", "bytes":
		if g.Length < 0 {
			return nil, fmt.Errorf("%s: length %d is negative", g.Type, g.Length)
		}
		c.maxLen = g.Length + 2
	case "random_int":
		if g.Min > g.Max {
			return nil, fmt.Errorf("random_int: min %v is above max %v", g.Min, g.Max)
		}
		c.maxLen = 20
	case "random_float":
		if g.Min > g.Max {
			return nil, fmt.Errorf("random_float: min %v is above max %v", g.Min, g.Max)
		}
		c.maxLen = 24
	case "bool":
		c.maxLen = 5
	case "sequence":
		c.maxLen = 20
	case "now":
		c.maxLen = 40
	case "one_of":
		if len(g.Values) == 0 {
			return nil, fmt.Errorf("one_of needs values")
		}
		total := 0.0
		for i, v := range g.Values {
			c.maxLen = max(c.maxLen, len(v))
			w := 1.0
			if len(g.Weights) > 0 {
				w = g.Weights[i]
			}
			total += w
			c.cumWeights = append(c.cumWeights, total)
		}
		for i := range c.cumWeights {
			c.cumWeights[i] /= total
		}
	default:
		return nil, fmt.Errorf("unknown generator %q", g.Type)
	}
	return c, nil
}

func (s *templateSource) Value(i int64) []byte {
	buf := make([]byte, 0, s.maxSize)
	now := time.Time{}
	for _, p := range s.pieces {
		if p.gen == nil {
			buf = append(buf, p.static...)
			continue
		}
		if p.gen.Type == "now" && now.IsZero() {
			now = time.Now()
		}
		buf = s.render(buf, p.gen, i, now)
	}
	return buf
}

const (
	alnum   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	hex     = "0123456789abcdef"
)

// appendRandom appends n characters drawn from alphabet, four per 64-bit
// random number (16 bits each, scaled to the alphabet: a bias under
// len(alphabet)/65536), a quarter of the random draws of one per character.
func (s *templateSource) appendRandom(buf []byte, n int, alphabet string) []byte {
	size := uint32(len(alphabet))
	for n > 0 {
		x := s.rng.Uint64()
		for j := 0; j < 4 && n > 0; j++ {
			buf = append(buf, alphabet[(uint32(x>>(16*j))&0xffff)*size>>16])
			n--
		}
	}
	return buf
}

func (s *templateSource) render(buf []byte, g *compiledGen, i int64, now time.Time) []byte {
	if g.faker != nil {
		return g.faker.render(buf, s.faker)
	}
	switch g.Type {
	case "uuid": // version 4 (RFC 9562) from ChaCha8, as k6's uuid generator
		a, b := s.rng.Uint64(), s.rng.Uint64()
		a = a&^(0xf<<12) | 0x4<<12 // version 4
		b = b&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
		buf = append(buf, '"')
		for k := 0; k < 16; k++ {
			var x byte
			if k < 8 {
				x = byte(a >> (56 - 8*k))
			} else {
				x = byte(b >> (56 - 8*(k-8)))
			}
			if k == 4 || k == 6 || k == 8 || k == 10 {
				buf = append(buf, '-')
			}
			buf = append(buf, hex[x>>4], hex[x&0xf])
		}
		return append(buf, '"')
	case "constant":
		return append(buf, g.Values[0]...)
	case "random_string":
		buf = append(buf, '"')
		buf = s.appendRandom(buf, g.Length, alnum)
		return append(buf, '"')
	case "bytes":
		buf = append(buf, '"')
		buf = s.appendRandom(buf, g.Length, letters)
		return append(buf, '"')
	case "random_int":
		lo, hi := int64(g.Min), int64(g.Max)
		return strconv.AppendInt(buf, lo+s.rng.Int64N(hi-lo+1), 10)
	case "random_float":
		return strconv.AppendFloat(buf, g.Min+s.rng.Float64()*(g.Max-g.Min), 'f', -1, 64)
	case "bool":
		return strconv.AppendBool(buf, s.rng.IntN(2) == 1)
	case "sequence":
		return strconv.AppendInt(buf, g.Start+i, 10)
	case "one_of":
		x := s.rng.Float64()
		for k, c := range g.cumWeights {
			if x < c || k == len(g.cumWeights)-1 {
				return append(buf, g.Values[k]...)
			}
		}
	case "now":
		switch g.Format {
		case "epoch_micros":
			return strconv.AppendInt(buf, now.UnixMicro(), 10)
		case "epoch_nanos":
			return strconv.AppendInt(buf, now.UnixNano(), 10)
		case "rfc3339":
			buf = append(buf, '"')
			buf = now.UTC().AppendFormat(buf, time.RFC3339Nano)
			return append(buf, '"')
		default:
			return strconv.AppendInt(buf, now.UnixMilli(), 10)
		}
	}
	return buf
}

func (s *templateSource) MaxSize() int { return s.maxSize }

// Clone gives another client its own random stream over the same
// template, derived from this source's seed and seed (clients do not send
// the same values in step; the same seeds give the same records run after
// run).
func (s *templateSource) Clone(seed uint64) Source {
	return newTemplateSource(s.pieces, s.maxSize, Mix(s.seed, seed))
}

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
