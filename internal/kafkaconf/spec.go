package kafkaconf

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbench/kbench/internal/suggest"
)

// Default is one row of the documented defaults table: a Java property, its
// Apache Kafka 4.x Java client default ("" when it has none), and what kbench
// does with it in franz-go.
type Default struct{ Key, Value, Meaning string }

// prop describes one property kbench maps: how to parse it into a T, how to
// show its effective value, its Java default and its meaning for the docs.
// The default is applied by parsing def, so the documented table and the
// behavior cannot disagree.
type prop[T any] struct {
	key, def, meaning string
	set               func(t *T, v string) error
	get               func(t *T) string
}

func intProp[T any, N ~int | ~int64](key, def string, lo, hi int64, field func(*T) *N, meaning string) prop[T] {
	return prop[T]{
		key: key, def: def, meaning: meaning,
		set: func(t *T, v string) error {
			n, err := parseInt(v, lo, hi)
			if err == nil {
				*field(t) = N(n)
			}
			return err
		},
		get: func(t *T) string { return strconv.FormatInt(int64(*field(t)), 10) },
	}
}

func msProp[T any](key, def string, lo, hi int64, field func(*T) *time.Duration, meaning string) prop[T] {
	return prop[T]{
		key: key, def: def, meaning: meaning,
		set: func(t *T, v string) error {
			n, err := parseInt(v, lo, hi)
			if err == nil {
				*field(t) = time.Duration(n) * time.Millisecond
			}
			return err
		},
		get: func(t *T) string { return millis(*field(t)) },
	}
}

func boolProp[T any](key, def string, field func(*T) *bool, meaning string) prop[T] {
	return prop[T]{
		key: key, def: def, meaning: meaning,
		set: func(t *T, v string) error {
			b, err := parseBool(v)
			if err == nil {
				*field(t) = b
			}
			return err
		},
		get: func(t *T) string { return strconv.FormatBool(*field(t)) },
	}
}

// strProp is a free-form string; maxLen > 0 bounds its length in bytes, and
// an explicitly empty value is rejected when nonEmpty (Java's NonEmptyString).
func strProp[T any](key string, maxLen int, nonEmpty bool, field func(*T) *string, meaning string) prop[T] {
	return prop[T]{
		key: key, meaning: meaning,
		set: func(t *T, v string) error {
			v = strings.TrimSpace(v)
			switch {
			case nonEmpty && v == "":
				return &badValue{why: "empty", allowed: "a non-empty string"}
			case maxLen > 0 && len(v) > maxLen:
				return &badValue{why: fmt.Sprintf("%d bytes long", len(v)), allowed: fmt.Sprintf("at most %d bytes", maxLen)}
			}
			*field(t) = v
			return nil
		},
		get: func(t *T) string { return *field(t) },
	}
}

func enumProp[T any](key, def string, fold bool, allowed []string, field func(*T) *string, meaning string) prop[T] {
	return prop[T]{
		key: key, def: def, meaning: meaning,
		set: func(t *T, v string) error {
			s, err := parseEnum(v, fold, allowed...)
			if err == nil {
				*field(t) = s
			}
			return err
		},
		get: func(t *T) string { return *field(t) },
	}
}

// lift turns props of the settings every client shares into props of T.
func lift[T any](ps []prop[Common], common func(*T) *Common) []prop[T] {
	out := make([]prop[T], 0, len(ps))
	for _, p := range ps {
		out = append(out, prop[T]{
			key: p.key, def: p.def, meaning: p.meaning,
			set: func(t *T, v string) error { return p.set(common(t), v) },
			get: func(t *T) string { return p.get(common(t)) },
		})
	}
	return out
}

func defaults[T any](ps []prop[T]) []Default {
	out := make([]Default, 0, len(ps))
	for _, p := range ps {
		out = append(out, Default{Key: p.key, Value: p.def, Meaning: p.meaning})
	}
	return out
}

func keys[T any](ps []prop[T]) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.key)
	}
	return out
}

// role is what the parse loop needs to know about the client being parsed.
type role struct {
	name, other string            // "producer", "consumer"
	otherKeys   []string          // properties only the other client knows
	noEffect    map[string]string // Java properties kbench ignores → why
}

// parseProps applies the Java defaults to t, then the properties in order,
// later ones overriding earlier ones as in a java.util.Properties. It
// records explicitly set properties in c, and returns every invalid value
// (not only the first) and a warning for each property it does not apply.
func parseProps[T any](t *T, ps []prop[T], props []Prop, r role, c *Common) (warns []Warning, errs []error) {
	for _, p := range ps {
		if p.def == "" {
			continue
		}
		if err := p.set(t, p.def); err != nil {
			panic(fmt.Sprintf("kafkaconf: default %s=%s does not parse: %v", p.key, p.def, err))
		}
	}
	byKey := make(map[string]prop[T], len(ps))
	for _, p := range ps {
		byKey[p.key] = p
	}
	last := make(map[string]int, len(props))
	for i, p := range props {
		last[p.Key] = i
	}
	c.set = make(map[string]Prop, len(last))
	var security []Prop // ssl.* and sasl.*, judged once security.protocol is known
	for i, pr := range props {
		if last[pr.Key] != i {
			continue
		}
		c.set[pr.Key] = pr
		if p, ok := byKey[pr.Key]; ok {
			if err := p.set(t, pr.Value); err != nil {
				errs = append(errs, invalid(pr, err))
			}
			continue
		}
		if w, ok := ignored(pr, r); ok {
			warns = append(warns, w)
			continue
		}
		if strings.HasPrefix(pr.Key, "ssl.") || strings.HasPrefix(pr.Key, "sasl.") {
			security = append(security, pr)
			continue
		}
		msg := fmt.Sprintf("unknown to the Java %s (Apache Kafka 4.x); ignored", r.name)
		known := append(keys(ps), slices.Sorted(maps.Keys(r.noEffect))...)
		if hint := suggest.Hint(pr.Key, known, suggest.Bare); hint != "" {
			msg += "; " + hint
		}
		warns = append(warns, Warning{Key: pr.Key, Source: pr.Source, Message: msg})
	}
	w, e := c.checkSecurity(security)
	return append(warns, w...), append(errs, e...)
}

// ignored returns the warning for a property the Java client knows but
// kbench does not apply, if pr is one.
func ignored(pr Prop, r role) (Warning, bool) {
	why, ok := r.noEffect[pr.Key]
	if !ok && strings.HasPrefix(pr.Key, "metrics.") {
		why, ok = "kbench measures and reports its own metrics", true
	}
	if ok {
		return Warning{Key: pr.Key, Source: pr.Source,
			Message: "known to the Java client but has no effect in kbench (" + why + "); ignored"}, true
	}
	if slices.Contains(r.otherKeys, pr.Key) {
		return Warning{Key: pr.Key, Source: pr.Source,
			Message: fmt.Sprintf("a %s setting; it has no effect on a %s; ignored", r.other, r.name)}, true
	}
	return Warning{}, false
}

// settings renders every mapped property's effective value, leaving out
// unset optional ones and redacting secrets.
func settings[T any](t *T, ps []prop[T]) map[string]string {
	out := make(map[string]string, len(ps))
	for _, p := range ps {
		if v := p.get(t); v != "" {
			out[p.key] = redact(p.key, v)
		}
	}
	return out
}

// only returns the keys of a that are not in b.
func only(a, b []string) []string {
	var out []string
	for _, k := range a {
		if !slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}

// clampInt32 converts n for kgo options that take an int32.
func clampInt32(n int) int32 { return int32(min(max(n, math.MinInt32), math.MaxInt32)) }
