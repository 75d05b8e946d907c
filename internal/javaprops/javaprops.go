// Package javaprops reads Java .properties text as java.util.Properties
// does, keeping the line each property starts on, so that a message can
// say where a setting came from. The client properties files (--producer.config)
// and an OMB driver's *Config blocks are read with it.
package javaprops

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/kbench/kbench/internal/userr"
)

// Prop is one property as the user wrote it. Source says where it came from,
// for messages: "--producer-props" or "client.properties:12".
type Prop struct{ Key, Value, Source string }

// Parse reads Java .properties text: '#' and '!' comment lines, key=value,
// key:value and "key value" lines, leading whitespace, backslash line
// continuation, and the \t \n \r \f \uXXXX escapes, as
// java.util.Properties.load does. Each Prop's Source is "name:line" with
// the line the property starts on; a property given twice is listed
// twice (the last one wins in Java). Errors, each naming its line, are
// marked with userr.
func Parse(text, name string) ([]Prop, error) {
	lines := splitLines(text)
	var (
		props []Prop
		errs  []error
	)
	for i := 0; i < len(lines); {
		start := i + 1
		logical := trimLeftSpace(lines[i])
		i++
		if logical == "" || logical[0] == '#' || logical[0] == '!' {
			continue // comment lines are never continued
		}
		for endsInEscape(logical) {
			logical = logical[:len(logical)-1]
			if i == len(lines) {
				break // Java drops a backslash at the end of the file
			}
			logical += trimLeftSpace(lines[i])
			i++
		}
		src := fmt.Sprintf("%s:%d", name, start)
		rawKey, rawValue := splitKeyValue(logical)
		key, kerr := unescape(rawKey)
		value, verr := unescape(rawValue)
		if err := errors.Join(kerr, verr); err != nil {
			errs = append(errs, userr.Errorf("%s: %w", src, err))
			continue
		}
		if key == "" {
			errs = append(errs, userr.Errorf("%s: empty property name", src))
			continue
		}
		props = append(props, Prop{Key: key, Value: value, Source: src})
	}
	if len(errs) > 0 {
		return nil, userr.New(errors.Join(errs...))
	}
	return props, nil
}

// splitLines splits on \n, \r\n and \r, as Java's LineReader does.
func splitLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.Split(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

func isPropSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

func trimLeftSpace(s string) string {
	for len(s) > 0 && isPropSpace(s[0]) {
		s = s[1:]
	}
	return s
}

// endsInEscape reports whether s ends in an odd number of backslashes, which
// makes the line continue on the next one.
func endsInEscape(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitKeyValue splits a logical line at the first unescaped '=', ':' or
// whitespace. Whitespace around the separator is skipped; a value keeps its
// trailing whitespace, as in Java.
func splitKeyValue(line string) (key, value string) {
	end, rest := len(line), len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' {
			return line[:i], trimLeftSpace(line[i+1:])
		}
		if isPropSpace(c) {
			end, rest = i, i
			break
		}
	}
	v := trimLeftSpace(line[rest:])
	if v != "" && (v[0] == '=' || v[0] == ':') {
		v = trimLeftSpace(v[1:])
	}
	return line[:end], v
}

// unescape applies the .properties escapes: \t \n \r \f, \uXXXX (surrogate
// pairs included), and a backslash before any other character stands for
// that character.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			if c != '\\' {
				b.WriteByte(c)
			}
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, n, err := unicodeEscape(s[i+1:])
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
			i += n
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// unicodeEscape decodes the XXXX after a \u, and a following \uXXXX low
// surrogate if the first is a high one. n is the number of bytes consumed.
func unicodeEscape(s string) (r rune, n int, err error) {
	hex := func(s string) (rune, bool) {
		if len(s) < 4 {
			return 0, false
		}
		v, err := strconv.ParseUint(s[:4], 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex(s)
	if !ok {
		return 0, 0, fmt.Errorf(`malformed \uXXXX escape %q`, `\u`+s[:min(4, len(s))])
	}
	if utf16.IsSurrogate(r) && strings.HasPrefix(s[4:], `\u`) {
		if lo, ok := hex(s[6:]); ok {
			if pair := utf16.DecodeRune(r, lo); pair != '\uFFFD' {
				return pair, 10, nil
			}
		}
	}
	return r, 4, nil
}
