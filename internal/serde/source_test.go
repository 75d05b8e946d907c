package serde

import (
	"bytes"
	"testing"
	"time"

	"github.com/kbench/kbench/internal/payload"
)

// TestRenderedSourceMatchesValue: a producer that renders encoded values
// into its slabs (payload.Renderer) sends what Value gives: the same
// framing and bytes, record by record; a value that does not fit the
// schema is empty and counted, as Value's is.
func TestRenderedSourceMatchesValue(t *testing.T) {
	gen := func(g payload.Generator) payload.Template {
		return payload.Template{Kind: payload.KindGenerator, Gen: g}
	}
	tmpl := payload.Template{Kind: payload.KindObject, Fields: []payload.TemplateField{
		{Name: "id", Value: gen(payload.Generator{Type: "uuid"})},
		{Name: "age", Value: gen(payload.Generator{Type: "random_int", Min: 0, Max: 100})},
	}}
	src, err := payload.CompileTemplate(tmpl, 7)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := Parse(Avro, `{"type":"record","name":"U","fields":[{"name":"id","type":"string"},{"name":"age","type":"int"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	// Clones as each producer client gets them.
	plain := NewSource(src, sch, 9).Clone(3)
	rendered, ok := Rendered(NewSource(src, sch, 9)).Clone(3).(payload.Renderer)
	if !ok {
		t.Fatal("a template's encoded source, cloned, is not a Renderer")
	}
	if _, ok := SourceOf(rendered); !ok {
		t.Fatal("SourceOf does not see through a rendered source")
	}
	buf := make([]byte, 0, rendered.MaxSize())
	for i := range int64(100) {
		want := plain.Value(i)
		got := rendered.AppendValue(buf[:0], i, time.Now())
		if !bytes.Equal(got, want) || len(got) == 0 {
			t.Fatalf("record %d: rendered %x, Value %x", i, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { rendered.AppendValue(buf[:0], 1, time.Now()) }); n != 0 {
		t.Errorf("%.0f allocations per rendered value, want 0", n)
	}
	bad, err := Parse(Avro, `{"type":"record","name":"U","fields":[{"name":"id","type":"int"},{"name":"age","type":"int"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	wrong := Rendered(NewSource(src.Clone(1), bad, 9)).(payload.Renderer)
	if v := wrong.AppendValue(buf[:0], 0, time.Now()); len(v) != 0 {
		t.Errorf("a value that does not fit is %x, want empty", v)
	}
	if n, err := wrong.(interface{ Failures() (int64, error) }).Failures(); n != 1 || err == nil {
		t.Errorf("failures %d (%v), want 1 counted", n, err)
	}
}
