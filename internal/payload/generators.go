package payload

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// generator is one generator type: its parameters (which the plan reads by
// their kind), the check of their values together, the longest value it
// renders, and the rendering. The plan's checks and CompileTemplate both
// come from here.
type generator struct {
	params []GenParam
	// defaults sets what a template may leave out.
	defaults func(g *Generator)
	check    func(g Generator) *GenProblem
	maxLen   func(g Generator) int
	render   func(s *templateSource, buf []byte, g *compiledGen, i int64, now time.Time) []byte
	// prepare, if set, computes what rendering needs once (one_of's
	// cumulative weights).
	prepare func(c *compiledGen)
	// clock: the generator renders the record's time (now).
	clock bool
}

// generators are the generator types by name, as the virtual-users
// study's k6 templates name them, with kbench's additions; faker's are
// gofakeit's (FakerPrefix). A new type is an entry here.
var generators = map[string]generator{
	"uuid":     {maxLen: fixed(38), render: renderUUID},
	"constant": constantGen,
	"random_string": {
		params:   []GenParam{{Name: "_length", Kind: WholeParam, Lo: 0, Hi: 1 << 20, set: func(g *Generator, v ParamValue) { g.Length = int(v.Number) }}},
		defaults: func(g *Generator) { g.Length = 16 },
		check:    nonNegativeLength, maxLen: quotedLength, render: renderString,
	},
	"bytes": {
		params:   []GenParam{{Name: "_size", Kind: SizeParam, Lo: 1, Hi: 1 << 24, set: func(g *Generator, v ParamValue) { g.Length = int(v.Number) }}},
		defaults: func(g *Generator) { g.Length = 100 },
		check:    nonNegativeLength, maxLen: quotedLength, render: renderLetters,
	},
	"random_int":   randomIntGen,
	"random_float": randomFloatGen,
	"bool": {maxLen: fixed(5), render: func(s *templateSource, buf []byte, _ *compiledGen, _ int64, _ time.Time) []byte {
		return strconv.AppendBool(buf, s.uint64n(2) == 1)
	}},
	"sequence": {
		params: []GenParam{{Name: "_start", Kind: NumberParam, set: func(g *Generator, v ParamValue) { g.Start = int64(v.Number) }}},
		maxLen: fixed(20),
		render: func(_ *templateSource, buf []byte, g *compiledGen, i int64, _ time.Time) []byte {
			return strconv.AppendInt(buf, g.Start+i, 10)
		},
	},
	"one_of": oneOfGen,
	"now": {
		params:   []GenParam{{Name: "_format", Kind: ChoiceParam, Choices: NowFormats, set: func(g *Generator, v ParamValue) { g.Format = v.Text }}},
		defaults: func(g *Generator) { g.Format = "epoch_millis" },
		maxLen:   fixed(40), render: renderNow, clock: true,
		prepare: func(c *compiledGen) {
			if c.Format == "epoch_millis" {
				c.render = renderMillis
			}
		},
	},
}

// Generators are the generator types' names, sorted.
var Generators = func() []string {
	names := make([]string, 0, len(generators))
	for name := range generators {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}()

// NowFormats are the formats of the now generator.
var NowFormats = []string{"epoch_millis", "epoch_micros", "epoch_nanos", "rfc3339"}

// ParamKind is how a generator parameter's value is written.
type ParamKind int

// The kinds of generator parameters, and where ParamValue holds them.
const (
	NumberParam  ParamKind = iota // a finite number: Number
	WholeParam                    // a whole number in [Lo, Hi] (units' count grammar): Number
	SizeParam                     // bytes in [Lo, Hi] (units' size grammar): Number
	ChoiceParam                   // one of Choices: Text
	TextParam                     // a single value, as text: Text
	ValueParam                    // a JSON value (a template without generators): Text
	ValuesParam                   // a non-empty list of JSON values: List
	WeightsParam                  // a list of numbers 0 or above: Numbers
)

// GenParam is one parameter of a generator, as a template writes it
// (_min: 0).
type GenParam struct {
	Name    string // with its underscore: _min
	Kind    ParamKind
	Lo, Hi  int64    // WholeParam, SizeParam
	Choices []string // ChoiceParam
	// Missing, when set, makes the parameter required: the problem to
	// report without it.
	Missing string
	set     func(g *Generator, v ParamValue)
}

// ParamValue is a parameter's value, read by its kind.
type ParamValue struct {
	Number  float64
	Text    string
	List    []string
	Numbers []float64
}

// Set gives g the parameter's value.
func (p GenParam) Set(g *Generator, v ParamValue) { p.set(g, v) }

// GenProblem is a generator whose parameters do not go together; Param
// names the one to change, "" the generator as a whole.
type GenProblem struct{ Param, Msg string }

func (p *GenProblem) Error() string {
	if p.Param == "" {
		return p.Msg
	}
	return p.Param + ": " + p.Msg
}

// NewGenerator is a generator of type typ with its defaults, and the
// parameters it takes; ok is false for an unknown type. A faker type
// (faker.email) takes gofakeit's parameters for it, as text.
func NewGenerator(typ string) (g Generator, params []GenParam, ok bool) {
	g.Type = typ
	if name, isFaker := strings.CutPrefix(typ, FakerPrefix); isFaker {
		names, ok := FakerParams(name)
		if !ok {
			return g, nil, false
		}
		g.Params = map[string]string{}
		for _, n := range names {
			params = append(params, GenParam{Name: n, Kind: TextParam, set: func(g *Generator, v ParamValue) { g.Params[n] = v.Text }})
		}
		return g, params, true
	}
	gen, ok := generators[typ]
	if !ok {
		return g, nil, false
	}
	if gen.defaults != nil {
		gen.defaults(&g)
	}
	return g, gen.params, true
}

// CheckGenerator checks g's parameters together (a minimum above its
// maximum, one weight per value): what CompileTemplate refuses.
func CheckGenerator(g Generator) *GenProblem {
	if name, ok := strings.CutPrefix(g.Type, FakerPrefix); ok {
		if _, ok := FakerParams(name); !ok {
			return &GenProblem{Msg: errUnknownFaker(name).Error()}
		}
		return nil
	}
	gen, ok := generators[g.Type]
	if !ok {
		return &GenProblem{Msg: fmt.Sprintf("unknown generator %q", g.Type)}
	}
	if gen.check == nil {
		return nil
	}
	return gen.check(g)
}

func fixed(n int) func(Generator) int { return func(Generator) int { return n } }

var constantGen = generator{
	params: []GenParam{{Name: "_value", Kind: ValueParam, Missing: "missing; constant needs the value to send",
		set: func(g *Generator, v ParamValue) { g.Values = []string{v.Text} }}},
	check: func(g Generator) *GenProblem {
		if len(g.Values) != 1 {
			return &GenProblem{Param: "_value", Msg: "constant needs one value"}
		}
		return nil
	},
	maxLen: func(g Generator) int { return len(g.Values[0]) },
	render: func(_ *templateSource, buf []byte, g *compiledGen, _ int64, _ time.Time) []byte {
		return append(buf, g.Values[0]...)
	},
}

func nonNegativeLength(g Generator) *GenProblem {
	if g.Length < 0 {
		return &GenProblem{Msg: fmt.Sprintf("%s: length %d is negative", g.Type, g.Length)}
	}
	return nil
}

func quotedLength(g Generator) int { return g.Length + 2 }

func renderString(s *templateSource, buf []byte, g *compiledGen, _ int64, _ time.Time) []byte {
	buf = append(buf, '"')
	buf = s.appendRandom(buf, g.Length, alnumChars)
	return append(buf, '"')
}

func renderLetters(s *templateSource, buf []byte, g *compiledGen, _ int64, _ time.Time) []byte {
	buf = append(buf, '"')
	buf = s.appendRandom(buf, g.Length, letterChars)
	return append(buf, '"')
}

// minMax are random_int's and random_float's parameters.
func minMax() []GenParam {
	return []GenParam{
		{Name: "_min", Kind: NumberParam, set: func(g *Generator, v ParamValue) { g.Min = v.Number }},
		{Name: "_max", Kind: NumberParam, set: func(g *Generator, v ParamValue) { g.Max = v.Number }},
	}
}

func minAboveMax(g Generator) *GenProblem {
	if g.Min > g.Max {
		return &GenProblem{Param: "_min", Msg: fmt.Sprintf("%v is above _max %v; swap them", g.Min, g.Max)}
	}
	return nil
}

var randomIntGen = generator{
	params:   minMax(),
	defaults: func(g *Generator) { g.Min, g.Max = 0, 100 },
	check: func(g Generator) *GenProblem {
		if g.Min != math.Trunc(g.Min) || g.Max != math.Trunc(g.Max) || math.Abs(g.Min) > 1<<53 || math.Abs(g.Max) > 1<<53 {
			return &GenProblem{Msg: "random_int takes whole numbers within ±2^53"}
		}
		return minAboveMax(g)
	},
	maxLen: fixed(20),
	render: func(s *templateSource, buf []byte, g *compiledGen, _ int64, _ time.Time) []byte {
		lo, hi := int64(g.Min), int64(g.Max)
		return strconv.AppendInt(buf, lo+int64(s.uint64n(uint64(hi-lo+1))), 10)
	},
}

var randomFloatGen = generator{
	params:   minMax(),
	defaults: func(g *Generator) { g.Min, g.Max = 0, 1 },
	check:    minAboveMax,
	maxLen:   fixed(24),
	render: func(s *templateSource, buf []byte, g *compiledGen, _ int64, _ time.Time) []byte {
		return strconv.AppendFloat(buf, g.Min+s.float64()*(g.Max-g.Min), 'f', -1, 64)
	},
}

var oneOfGen = generator{
	params: []GenParam{
		{Name: "_values", Kind: ValuesParam, Missing: "missing or empty; write a list of the values to choose from",
			set: func(g *Generator, v ParamValue) { g.Values = v.List }},
		{Name: "_weights", Kind: WeightsParam, set: func(g *Generator, v ParamValue) { g.Weights = v.Numbers }},
	},
	check: func(g Generator) *GenProblem {
		switch {
		case len(g.Values) == 0:
			return &GenProblem{Param: "_values", Msg: "one_of needs values"}
		case len(g.Weights) > 0 && len(g.Weights) != len(g.Values):
			return &GenProblem{Param: "_weights", Msg: fmt.Sprintf("write a list of %d weights, one per value", len(g.Values))}
		}
		return nil
	},
	prepare: func(c *compiledGen) { c.cumWeights = cumulative(c.Generator) },
	maxLen: func(g Generator) int {
		n := 0
		for _, v := range g.Values {
			n = max(n, len(v))
		}
		return n
	},
	render: func(s *templateSource, buf []byte, g *compiledGen, _ int64, _ time.Time) []byte {
		x := s.float64()
		for k, c := range g.cumWeights {
			if x < c || k == len(g.cumWeights)-1 {
				return append(buf, g.Values[k]...)
			}
		}
		return buf
	},
}

// cumulative are one_of's weights as cumulative shares of their total.
func cumulative(g Generator) []float64 {
	var cum []float64
	total := 0.0
	for i := range g.Values {
		w := 1.0
		if len(g.Weights) > 0 {
			w = g.Weights[i]
		}
		total += w
		cum = append(cum, total)
	}
	for i := range cum {
		cum[i] /= total
	}
	return cum
}

// renderUUID writes a version 4 uuid (RFC 9562) from the template's stream, as k6's
// uuid generator, quoted: 38 bytes written in place, eight hex digits at a
// time (hex8).
func renderUUID(s *templateSource, buf []byte, _ *compiledGen, _ int64, _ time.Time) []byte {
	a, b := s.rng.Uint64(), s.rng.Uint64()
	a = a&^(0xf<<12) | 0x4<<12 // version 4
	b = b&^(0x3<<62) | 0x2<<62 // RFC 4122 variant
	start := len(buf)
	buf = grow(buf, 38)
	u := (*[38]byte)(buf[start:])
	var d [32]byte // the 32 digits
	binary.BigEndian.PutUint64(d[0:], hex8(uint32(a>>32)))
	binary.BigEndian.PutUint64(d[8:], hex8(uint32(a)))
	binary.BigEndian.PutUint64(d[16:], hex8(uint32(b>>32)))
	binary.BigEndian.PutUint64(d[24:], hex8(uint32(b)))
	u[0], u[9], u[14], u[19], u[24], u[37] = '"', '-', '-', '-', '-', '"'
	copy(u[1:9], d[0:8])
	copy(u[10:14], d[8:12])
	copy(u[15:19], d[12:16])
	copy(u[20:24], d[16:20])
	copy(u[25:37], d[20:32])
	return buf
}

// hex8 is x's eight lower-case hex digits, the first in the top byte:
// each nibble spread to a byte of its own, then '0' added, and 'a'-'0'-10
// more to the nibbles of 10 and above.
func hex8(x uint32) uint64 {
	v := uint64(x)
	v = (v<<16 | v) & 0x0000ffff0000ffff
	v = (v<<8 | v) & 0x00ff00ff00ff00ff
	v = (v<<4 | v) & 0x0f0f0f0f0f0f0f0f
	letters := (v + 0x0606060606060606) >> 4 & 0x0101010101010101
	return v + 0x3030303030303030 + letters*('a'-'0'-10)
}

func renderNow(_ *templateSource, buf []byte, g *compiledGen, _ int64, now time.Time) []byte {
	switch g.Format {
	case "epoch_micros":
		return strconv.AppendInt(buf, now.UnixMicro(), 10)
	case "epoch_nanos":
		return strconv.AppendInt(buf, now.UnixNano(), 10)
	case "rfc3339":
		buf = append(buf, '"')
		buf = now.UTC().AppendFormat(buf, time.RFC3339Nano)
		return append(buf, '"')
	}
	return strconv.AppendInt(buf, now.UnixMilli(), 10)
}

// renderMillis is now's epoch_millis: the digits change once a millisecond,
// so the source keeps the last ones (thousands of records a millisecond
// copy them instead of formatting 13 digits each).
func renderMillis(s *templateSource, buf []byte, _ *compiledGen, _ int64, now time.Time) []byte {
	if ms := now.UnixMilli(); ms != s.ms || s.msDigits == 0 {
		s.ms, s.msDigits = ms, len(strconv.AppendInt(s.msText[:0], ms, 10))
	}
	return append(buf, s.msText[:s.msDigits]...)
}
