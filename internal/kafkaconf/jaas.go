package kafkaconf

import (
	"fmt"
	"strings"
	"unicode"
)

// jaasEntry is one login module of a sasl.jaas.config value:
//
//	org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";
type jaasEntry struct {
	Module  string // the class name
	Flag    string // required, requisite, sufficient or optional
	Options map[string]string
}

// The login modules kbench understands, by class name.
const (
	plainModule = "org.apache.kafka.common.security.plain.PlainLoginModule"
	scramModule = "org.apache.kafka.common.security.scram.ScramLoginModule"
	oauthModule = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
	iamModule   = "software.amazon.msk.auth.iam.IAMLoginModule"
)

// jaasError says where a value fails to parse: the character (1-based) and
// what was expected. Its text never holds the value (it has passwords).
type jaasError struct {
	at   int
	want string
}

func (e *jaasError) Error() string {
	return fmt.Sprintf("at character %d: expected %s; the form is LoginModuleClass required key=\"value\" ...;", e.at, e.want)
}

// parseJAAS parses a sasl.jaas.config value as Java's JaasConfig does
// (one login module, as Kafka clients allow).
func parseJAAS(s string) (jaasEntry, error) {
	p := &jaasParser{s: []rune(s)}
	var e jaasEntry
	p.space()
	e.Module = p.word()
	if e.Module == "" {
		return e, p.fail("a login module class name")
	}
	p.space()
	flagAt := p.i
	e.Flag = p.word()
	switch e.Flag {
	case "required", "requisite", "sufficient", "optional":
	default:
		p.i = flagAt
		return e, p.fail("the control flag required (or requisite, sufficient, optional)")
	}
	e.Options = map[string]string{}
	for {
		p.space()
		if p.eof() {
			return e, p.fail("';' at the end")
		}
		if p.peek() == ';' {
			p.i++
			p.space()
			if !p.eof() {
				return e, p.fail("nothing after ';' (kbench clients take one login module)")
			}
			return e, nil
		}
		key := p.word()
		if key == "" {
			return e, p.fail("an option name, or ';'")
		}
		p.space()
		if p.eof() || p.peek() != '=' {
			return e, p.fail(fmt.Sprintf("'=' after %s", key))
		}
		p.i++
		p.space()
		val, err := p.value()
		if err != nil {
			return e, err
		}
		e.Options[key] = val
	}
}

type jaasParser struct {
	s []rune
	i int
}

func (p *jaasParser) eof() bool  { return p.i >= len(p.s) }
func (p *jaasParser) peek() rune { return p.s[p.i] }

func (p *jaasParser) fail(want string) error { return &jaasError{at: p.i + 1, want: want} }

func (p *jaasParser) space() {
	for !p.eof() && unicode.IsSpace(p.peek()) {
		p.i++
	}
}

// word is a class name, flag or option name: anything up to a space, '='
// or ';'.
func (p *jaasParser) word() string {
	start := p.i
	for !p.eof() && !unicode.IsSpace(p.peek()) && p.peek() != '=' && p.peek() != ';' && p.peek() != '"' {
		p.i++
	}
	return string(p.s[start:p.i])
}

// value is a double-quoted string (backslash escapes the next character)
// or a bare word.
func (p *jaasParser) value() (string, error) {
	if p.eof() {
		return "", p.fail("a value")
	}
	if p.peek() != '"' {
		w := p.word()
		if w == "" {
			return "", p.fail("a value")
		}
		return w, nil
	}
	p.i++
	var b strings.Builder
	for !p.eof() {
		r := p.peek()
		p.i++
		switch r {
		case '\\':
			if p.eof() {
				return "", p.fail("a character after '\\'")
			}
			b.WriteRune(p.peek())
			p.i++
		case '"':
			return b.String(), nil
		default:
			b.WriteRune(r)
		}
	}
	return "", p.fail("the closing '\"'")
}
