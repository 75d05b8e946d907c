package payload

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/measure"
)

// studyTemplate is the virtual-users study's message, as its k6 plan
// writes it.
func studyTemplate() Template {
	gen := func(g Generator) Template { return Template{Kind: KindGenerator, Gen: g} }
	return Template{Kind: KindObject, Fields: []TemplateField{
		{"id", gen(Generator{Type: "uuid"})},
		{"name", gen(Generator{Type: "constant", Values: []string{`"name"`}})},
		{"description", gen(Generator{Type: "random_string", Length: 40})},
		{"value", gen(Generator{Type: "random_int", Min: 0, Max: 100})},
		{"timestamp", gen(Generator{Type: "now", Format: "epoch_millis"})},
	}}
}

func TestTemplateStudyMessage(t *testing.T) {
	src, err := CompileTemplate(studyTemplate(), 1)
	if err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	before := time.Now().UnixMilli()
	for i := int64(0); i < 1000; i++ {
		v := src.Value(i)
		if len(v) > src.MaxSize() {
			t.Fatalf("value of %d bytes beyond MaxSize %d", len(v), src.MaxSize())
		}
		var m struct {
			ID          string `json:"id"`
			Name        string `json:"name"`
			Description string `json:"description"`
			Value       int    `json:"value"`
			Timestamp   int64  `json:"timestamp"`
		}
		if err := json.Unmarshal(v, &m); err != nil {
			t.Fatalf("not JSON: %s: %v", v, err)
		}
		if !uuid.MatchString(m.ID) || m.Name != "name" || len(m.Description) != 40 || m.Value < 0 || m.Value > 100 ||
			m.Timestamp < before || m.Timestamp > time.Now().UnixMilli() {
			t.Fatalf("record %d: %s", i, v)
		}
		if i == 0 && !strings.HasPrefix(string(v), `{"id":"`) {
			t.Fatalf("fields out of order: %s", v)
		}
	}
}

func TestTemplateGenerators(t *testing.T) {
	lit := func(s string) Template { return Template{Kind: KindLiteral, JSON: s} }
	gen := func(g Generator) Template { return Template{Kind: KindGenerator, Gen: g} }
	tmpl := Template{Kind: KindObject, Fields: []TemplateField{
		{"f", gen(Generator{Type: "random_float", Min: -1.5, Max: 2.5})},
		{"b", gen(Generator{Type: "bool"})},
		{"seq", gen(Generator{Type: "sequence", Start: 100})},
		{"pick", gen(Generator{Type: "one_of", Values: []string{`"a"`, `"b"`}, Weights: []float64{1, 0}})},
		{"raw", gen(Generator{Type: "bytes", Length: 8})},
		{"at", gen(Generator{Type: "now", Format: "rfc3339"})},
		{"us", gen(Generator{Type: "now", Format: "epoch_micros"})},
		{"list", Template{Kind: KindArray, Items: []Template{lit("1"), lit(`"x"`), lit("null")}}},
		{"nested", Template{Kind: KindObject, Fields: []TemplateField{{"k", lit("true")}}}},
	}}
	src, err := CompileTemplate(tmpl, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 200; i++ {
		var m map[string]any
		v := src.Value(i)
		if err := json.Unmarshal(v, &m); err != nil {
			t.Fatalf("not JSON: %s", v)
		}
		f := m["f"].(float64)
		if f < -1.5 || f > 2.5 || m["seq"].(float64) != float64(100+i) || m["pick"] != "a" || len(m["raw"].(string)) != 8 {
			t.Fatalf("record %d: %s", i, v)
		}
		if _, err := time.Parse(time.RFC3339Nano, m["at"].(string)); err != nil {
			t.Fatalf("rfc3339: %v", err)
		}
		if _, ok := m["b"].(bool); !ok || m["nested"].(map[string]any)["k"] != true || len(m["list"].([]any)) != 3 {
			t.Fatalf("record %d: %s", i, v)
		}
	}
	// Regression: one_of with fewer weights than values passed
	// CompileTemplate (only the plan checked the count) and panicked on the
	// first record; both read the generator registry's check now.
	for _, bad := range []Generator{{Type: "random_int", Min: 5, Max: 1}, {Type: "nope"}, {Type: "one_of"},
		{Type: "one_of", Values: []string{"1", "2"}, Weights: []float64{1}}, {Type: "random_string", Length: -1}} {
		if _, err := CompileTemplate(Template{Kind: KindGenerator, Gen: bad}, 1); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

// TestGeneratorRegistry: every generator the registry names compiles with
// its defaults (and the values its required parameters need) and renders
// within its MaxSize.
func TestGeneratorRegistry(t *testing.T) {
	for _, name := range Generators {
		g, params, ok := NewGenerator(name)
		if !ok {
			t.Fatalf("%s: not in the registry", name)
		}
		for _, p := range params {
			switch {
			case p.Missing == "":
			case p.Kind == ValueParam:
				p.Set(&g, ParamValue{Text: `"x"`})
			case p.Kind == ValuesParam:
				p.Set(&g, ParamValue{List: []string{`"x"`, "2"}})
			default:
				t.Fatalf("%s: required parameter %s of an unexpected kind", name, p.Name)
			}
		}
		if p := CheckGenerator(g); p != nil {
			t.Errorf("%s with its defaults: %v", name, p)
			continue
		}
		src, err := CompileTemplate(Template{Kind: KindGenerator, Gen: g}, 1)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if v := src.Value(0); len(v) == 0 || len(v) > src.MaxSize() {
			t.Errorf("%s: value %q, MaxSize %d", name, v, src.MaxSize())
		}
	}
	if _, _, ok := NewGenerator("uuid4"); ok {
		t.Error("uuid4 is in the registry")
	}
	if g, _, ok := NewGenerator("faker.email"); !ok || g.Params == nil {
		t.Errorf("faker.email: %+v %v", g, ok)
	}
}

// TestTemplateSeedReproducible: the same seed gives the same records.
func TestTemplateSeedReproducible(t *testing.T) {
	tmpl := studyTemplate()
	tmpl.Fields = tmpl.Fields[:4] // without the clock
	a, _ := CompileTemplate(tmpl, 42)
	b, _ := CompileTemplate(tmpl, 42)
	c, _ := CompileTemplate(tmpl, 43)
	same := true
	for i := int64(0); i < 10; i++ {
		va, vb, vc := string(a.Value(i)), string(b.Value(i)), string(c.Value(i))
		if va != vb {
			t.Fatalf("seed 42 twice: %s vs %s", va, vb)
		}
		same = same && va == vc
	}
	if same {
		t.Fatal("seeds 42 and 43 gave the same records")
	}
}

func TestTemplateOneAllocationPerRecord(t *testing.T) {
	src, _ := CompileTemplate(studyTemplate(), 1)
	i := int64(0)
	if allocs := testing.AllocsPerRun(1000, func() { src.Value(i); i++ }); allocs > 1 {
		t.Fatalf("%.1f allocations per record, want at most 1 (the value)", allocs)
	}
}

// BenchmarkTemplateStudyMessage renders the virtual-users study's message.
func BenchmarkTemplateStudyMessage(b *testing.B) {
	src, _ := CompileTemplate(studyTemplate(), 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		src.Value(int64(i))
	}
}

// studyMeanSize is the study message's mean rendered size in bytes (a
// 13-digit epoch_millis, a value of 0-100): what bench/template.sh sets
// the fixed-size values to.
const studyMeanSize = 153

// BenchmarkValue compares the study message (bench/template.sh's) with
// fixed-size values of its mean size: the work per value a producer does
// for each.
func BenchmarkValue(b *testing.B) {
	tmpl, err := CompileTemplate(studyTemplate(), 1)
	if err != nil {
		b.Fatal(err)
	}
	fixed, err := Random(studyMeanSize, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		src  Source
	}{{"fixed-size", fixed}, {"template", tmpl}} {
		b.Run(c.name, func(b *testing.B) {
			src := c.src.Clone(1)
			src.Value(0)
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			cpu := measure.ProcessCPU()
			for i := 0; i < b.N; i++ {
				n += len(src.Value(int64(i)))
			}
			// CPU time, garbage collection included, tells more than
			// ns/op on a loaded machine.
			b.ReportMetric(float64((measure.ProcessCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(n)/float64(b.N), "B/value")
		})
	}
	// A producer's rendering: into its buffer, at its clock reading.
	b.Run("template-append", func(b *testing.B) {
		r := tmpl.Clone(1).(Renderer)
		buf := make([]byte, 0, r.MaxSize())
		now := time.Now()
		b.ReportAllocs()
		b.ResetTimer()
		cpu := measure.ProcessCPU()
		for i := 0; i < b.N; i++ {
			buf = r.AppendValue(buf[:0], int64(i), now)
		}
		b.ReportMetric(float64((measure.ProcessCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}

func TestTemplateFaker(t *testing.T) {
	gen := func(g Generator) Template { return Template{Kind: KindGenerator, Gen: g} }
	tmpl := Template{Kind: KindObject, Fields: []TemplateField{
		{"email", gen(Generator{Type: "faker.email"})},
		{"n", gen(Generator{Type: "faker.number", Params: map[string]string{"_min": "5", "_max": "9"}})},
	}}
	a, err := CompileTemplate(tmpl, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := CompileTemplate(tmpl, 3)
	for i := int64(0); i < 50; i++ {
		va, vb := a.Value(i), b.Value(i)
		var m struct {
			Email string `json:"email"`
			N     int    `json:"n"`
		}
		if err := json.Unmarshal(va, &m); err != nil || !strings.Contains(m.Email, "@") || m.N < 5 || m.N > 9 {
			t.Fatalf("record %d: %s (%v)", i, va, err)
		}
		if string(va) != string(vb) {
			t.Fatalf("the same seed gave %s and %s", va, vb)
		}
	}
	if _, err := CompileTemplate(gen(Generator{Type: "faker.nosuchthing"}), 1); err == nil {
		t.Fatal("an unknown faker generator must be refused")
	}
	if _, ok := FakerParams("email"); !ok || len(FakerNames()) < 100 {
		t.Fatalf("faker catalogue: %d names", len(FakerNames()))
	}
}

// TestTemplateValuesKept: Value cuts values from chunks of its own; each
// stays as rendered while later ones are (franz-go holds them until
// acknowledged), and none can be appended into the next.
func TestTemplateValuesKept(t *testing.T) {
	gen := func(g Generator) Template { return Template{Kind: KindGenerator, Gen: g} }
	for name, tmpl := range map[string]Template{
		"study": studyTemplate(),
		// Values past MaxSize (2 paragraphs of 8 sentences of 20 words):
		// slices of their own.
		"faker": {Kind: KindObject, Fields: []TemplateField{{"s", gen(Generator{Type: "faker.loremipsumparagraph", Params: map[string]string{
			"_paragraphcount": "2", "_sentencecount": "8", "_wordcount": "20", "_paragraphseparator": " "}})}}},
	} {
		src, err := CompileTemplate(tmpl, 5)
		if err != nil {
			t.Fatal(err)
		}
		var vals, kept [][]byte
		long := 0
		for i := int64(0); i < 3000; i++ {
			v := src.Value(i)
			if len(v) > src.MaxSize() {
				long++
			}
			if cap(v) != len(v) {
				t.Fatalf("%s: record %d: %d bytes with capacity %d", name, i, len(v), cap(v))
			}
			vals, kept = append(vals, v), append(kept, append([]byte(nil), v...))
		}
		if name == "faker" && long == 0 {
			t.Fatal("faker: no value past MaxSize")
		}
		for i := range vals {
			if string(vals[i]) != string(kept[i]) {
				t.Fatalf("%s: record %d changed: %s, rendered %s", name, i, vals[i], kept[i])
			}
		}
	}
}

// TestTemplateAppendValue: a producer's rendering (AppendValue, into its
// buffer, at its clock reading) gives Value's records.
func TestTemplateAppendValue(t *testing.T) {
	a, _ := CompileTemplate(studyTemplate(), 9)
	b, _ := CompileTemplate(studyTemplate(), 9)
	r := b.(Renderer)
	now := time.UnixMilli(1795911287688)
	buf := make([]byte, 0, 4096)
	for i := int64(0); i < 100; i++ {
		va := a.Value(i)
		vb := r.AppendValue(buf[:0], i, now)
		if &vb[0] != &buf[:1][0] {
			t.Fatal("AppendValue did not render into the buffer given")
		}
		cut := strings.LastIndex(string(va), `"timestamp":`)
		if string(va[:cut]) != string(vb[:cut]) || string(vb[cut:]) != `"timestamp":1795911287688}` {
			t.Fatalf("record %d: %s, Value gave %s", i, vb, va)
		}
	}
	// The millisecond's digits are kept: the next millisecond's replace them.
	for _, ms := range []int64{1795911287689, 1795911287689, 999, 1795911287690} {
		v := r.AppendValue(nil, 0, time.UnixMilli(ms))
		if want := fmt.Sprintf(`"timestamp":%d}`, ms); !strings.HasSuffix(string(v), want) {
			t.Fatalf("at %d ms: %s", ms, v)
		}
	}
}

func TestHex8(t *testing.T) {
	for _, x := range []uint32{0, 1, 9, 10, 15, 0x12345678, 0x9abcdef0, 0xffffffff, 0xa0b0c0d0} {
		var got [8]byte
		binary.BigEndian.PutUint64(got[:], hex8(x))
		if want := fmt.Sprintf("%08x", x); string(got[:]) != want {
			t.Fatalf("hex8(%#x) = %s, want %s", x, got, want)
		}
	}
}

// TestRandomStringUniform: random strings drawn a pair of characters at a
// time (and the last few one at a time) give every character at every
// position, and every pair of neighbours, as often as chance would: a
// chi-square bound far past chance (the stream is seeded, so the check is
// fixed) catches a pair table built wrong, a biased fraction or a position
// the draw skips.
func TestRandomStringUniform(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		a      *alphabet
		length int
	}{
		{"alnum 40", alnumChars, 40},
		{"alnum 7 (one at a time only)", alnumChars, 7},
		{"alnum 13 (a pair chain and a tail)", alnumChars, 13},
		{"letters 16", letterChars, 16},
	}
	const draws = 40_000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newTemplateSource(nil, 0, 7)
			size := int(tt.a.size)
			index := [256]int{}
			for i := range size {
				index[tt.a.chars[i]] = i
			}
			perPos := make([][]int, tt.length)
			for p := range perPos {
				perPos[p] = make([]int, size)
			}
			pairs := make([][]int, tt.length-1) // neighbours at p, p+1
			for p := range pairs {
				pairs[p] = make([]int, size*size)
			}
			var buf []byte
			for range draws {
				buf = s.appendRandom(buf[:0], tt.length, tt.a)
				if len(buf) != tt.length {
					t.Fatalf("%d characters, want %d", len(buf), tt.length)
				}
				for p, c := range buf {
					if tt.a.chars[index[c]] != c {
						t.Fatalf("%q is not of the alphabet", c)
					}
					perPos[p][index[c]]++
					if p+1 < len(buf) {
						pairs[p][index[c]*size+index[buf[p+1]]]++
					}
				}
			}
			// chi² with df degrees of freedom has mean df and deviation
			// √(2df); 8 deviations past the mean does not happen by chance.
			check := func(what string, counts []int) {
				df := float64(len(counts) - 1)
				want := float64(draws) / float64(len(counts))
				var chi float64
				for _, n := range counts {
					d := float64(n) - want
					chi += d * d / want
				}
				if bound := df + 8*math.Sqrt(2*df); chi > bound {
					t.Errorf("%s: chi² %.0f over %d cells, past %.0f", what, chi, len(counts), bound)
				}
			}
			for p := range perPos {
				check(fmt.Sprintf("position %d", p), perPos[p])
			}
			for p := range pairs {
				check(fmt.Sprintf("positions %d and %d", p, p+1), pairs[p])
			}
		})
	}
}
