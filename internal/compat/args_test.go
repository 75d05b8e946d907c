package compat

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

var testOptions = []Option{
	{Name: "--topic", Kind: Value},
	{Name: "--num-records", Kind: Value},
	{Name: "--throughput", Kind: Value},
	{Name: "--producer-props", Kind: List},
	{Name: "--print-metrics", Kind: Flag},
	{Name: "--timeout", Kind: OptionalValue},
	{Name: "--broker-list", Kind: Value, Deprecated: "--bootstrap-server"},
	{Name: "--num-threads", Kind: Value},
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, a *Args)
	}{
		{"value forms", []string{"--topic", "t1", "--num-records=5"}, func(t *testing.T, a *Args) {
			if a.String("--topic") != "t1" || a.String("--num-records") != "5" {
				t.Fatalf("got %v", a.values)
			}
		}},
		{"negative number is a value", []string{"--throughput", "-1"}, func(t *testing.T, a *Args) {
			if v, _ := a.Float64("--throughput", 0); v != -1 {
				t.Fatalf("throughput = %v", v)
			}
		}},
		{"list stops at next option", []string{"--producer-props", "acks=1", "linger.ms=5", "--topic", "x"}, func(t *testing.T, a *Args) {
			if !reflect.DeepEqual(a.List("--producer-props"), []string{"acks=1", "linger.ms=5"}) || a.String("--topic") != "x" {
				t.Fatalf("got %v", a.values)
			}
		}},
		{"list repeated and values with = and negatives", []string{"--producer-props", "acks=-1", "--producer-props", "sasl.jaas.config=a=b"}, func(t *testing.T, a *Args) {
			if !reflect.DeepEqual(a.List("--producer-props"), []string{"acks=-1", "sasl.jaas.config=a=b"}) {
				t.Fatalf("got %v", a.List("--producer-props"))
			}
		}},
		{"flag", []string{"--print-metrics"}, func(t *testing.T, a *Args) {
			if !a.Has("--print-metrics") || a.Has("--topic") {
				t.Fatal("flags wrong")
			}
		}},
		{"optional value present and absent", []string{"--timeout", "--topic", "x"}, func(t *testing.T, a *Args) {
			if !a.Has("--timeout") || a.String("--timeout") != "" || a.String("--topic") != "x" {
				t.Fatalf("got %v", a.values)
			}
		}},
		{"unique prefix", []string{"--num-r", "7", "--thr", "10"}, func(t *testing.T, a *Args) {
			if a.String("--num-records") != "7" || a.String("--throughput") != "10" {
				t.Fatalf("got %v", a.values)
			}
		}},
		{"jopt style equals", []string{"--broker-list=h1:9092,h2:9092"}, func(t *testing.T, a *Args) {
			if a.String("--broker-list") != "h1:9092,h2:9092" || len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "--bootstrap-server") {
				t.Fatalf("got %v notes %v", a.values, a.Notes)
			}
		}},
		{"last value wins", []string{"--topic", "a", "--topic", "b"}, func(t *testing.T, a *Args) {
			if a.String("--topic") != "b" {
				t.Fatal(a.String("--topic"))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := Parse("tool", testOptions, tt.args, false)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, a)
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--topik", "x"}, "unknown option --topik; did you mean --topic?"},
		{[]string{"--zzzzzzzzzzzzzz"}, "unknown option --zzzzzzzzzzzzzz (see --help)"},
		{[]string{"--topic"}, "option --topic needs a value"},
		{[]string{"--topic", "--num-records", "5"}, "option --topic needs a value"},
		{[]string{"--producer-props"}, "needs at least one value"},
		{[]string{"--producer-props", "--topic", "x"}, "needs at least one value"},
		{[]string{"--print-metrics=yes"}, "takes no value"},
		{[]string{"--num", "5"}, "ambiguous: --num-records, --num-threads"},
		{[]string{"stray"}, `unexpected argument "stray"`},
	}
	for _, tt := range tests {
		_, err := Parse("tool", testOptions, tt.args, false)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q): err = %v, want it to contain %q", tt.args, err, tt.want)
			continue
		}
		if !userr.Is(err) {
			t.Errorf("Parse(%q): error must be a usage error", tt.args)
		}
	}
}

func TestParsePositional(t *testing.T) {
	t.Parallel()
	a, err := Parse("tool", testOptions, []string{"b:9092", "topic", "--topic", "x", "100"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Positional, []string{"b:9092", "topic", "100"}) {
		t.Fatalf("positional = %v", a.Positional)
	}
}

func TestNumbers(t *testing.T) {
	t.Parallel()
	a, err := Parse("tool", testOptions, []string{"--num-records", "12x", "--throughput", "2.5"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Int64("--num-records", 0); err == nil || !userr.Is(err) || !strings.Contains(err.Error(), `"12x" is not a whole number`) {
		t.Fatalf("err = %v", err)
	}
	if v, err := a.Float64("--throughput", 0); err != nil || v != 2.5 {
		t.Fatalf("throughput %v %v", v, err)
	}
	if v, err := a.Int64("--topic", 42); err != nil || v != 42 {
		t.Fatalf("default: %v %v", v, err)
	}
}

// TestCheckTopic guards Kafka's topic name rule. Regression: illegal names
// were accepted and failed later, or never (a consumer waited on them).
func TestCheckTopic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		topic string
		want  string // "" for a legal name
	}{
		{"plain", "orders", ""},
		{"every legal char", "a-Z_0.9", ""},
		{"249 chars", strings.Repeat("t", 249), ""},
		{"dots inside", "a..b", ""},
		{"empty", "", "empty"},
		{"dot", ".", "not allowed"},
		{"dot-dot", "..", "not allowed"},
		{"250 chars", strings.Repeat("t", 250), "at most 249"},
		{"space", "a b", "contains ' '"},
		{"colon", "a:b", "contains ':'"},
		{"unicode", "tópico", "contains 'ó'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckTopic(tt.topic)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("CheckTopic(%q) = %v, want nil", tt.topic, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("CheckTopic(%q) = %v, want an error containing %q", tt.topic, err, tt.want)
			}
		})
	}
}
