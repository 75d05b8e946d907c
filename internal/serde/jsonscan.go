package serde

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"
)

// A small scanner over one rendered JSON value, for the encoders' fast
// path: it finds values' spans without building maps, so a record is
// encoded straight from the template's bytes. Templates render valid
// JSON; anything else is an error, never a panic.

var errJSON = errors.New("the rendered value is not valid JSON")

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value starting at i.
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch c := b[i]; {
	case c == '"':
		return stringEnd(b, i)
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, err := stringEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errJSON
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
			j++
		}
		if j == i {
			return 0, errJSON
		}
		return j, nil
	}
}

// stringEnd returns the index just past the string starting at i (a quote).
func stringEnd(b []byte, i int) (int, error) {
	// The next quote (bytes.IndexByte: many bytes a step) ends the string
	// unless an odd run of backslashes escapes it.
	for j := i + 1; ; {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return 0, errJSON
		}
		q += j
		n := 0
		for k := q - 1; k > i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// jsonString returns a string value's text; raw is its span with quotes.
// Without escapes it is the span itself (no copy).
func jsonString(raw []byte) ([]byte, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, errJSON
	}
	in := raw[1 : len(raw)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return in, nil
	}
	s, err := strconv.Unquote(string(raw))
	if err != nil {
		// JSON allows \/ and \uXXXX surrogate pairs that Go's unquote
		// reads too; anything else is not JSON.
		return nil, errJSON
	}
	if !utf8.ValidString(s) {
		return nil, errJSON
	}
	return []byte(s), nil
}

// eachMember calls fn with each member's key (unquoted, no escapes
// expected in field names) and value span of the object at b.
func eachMember(b []byte, fn func(key, val []byte) error) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errJSON
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		ke, err := stringEnd(b, i)
		if err != nil || b[i] != '"' {
			return errJSON
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return errJSON
		}
		i = skipWS(b, i+1)
		ve, err := valueEnd(b, i)
		if err != nil {
			return err
		}
		if err := fn(key, b[i:ve]); err != nil {
			return err
		}
		i = skipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return nil
		}
		return errJSON
	}
	return errJSON
}

// eachItem calls fn with each item's span of the array at b.
func eachItem(b []byte, fn func(val []byte) error) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errJSON
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		ve, err := valueEnd(b, i)
		if err != nil {
			return err
		}
		if err := fn(b[i:ve]); err != nil {
			return err
		}
		i = skipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return nil
		}
		return errJSON
	}
	return errJSON
}

// kindOf is the JSON kind of a value span: '"', '{', '[', 'n' (null),
// 't'/'f' (booleans) or '0' (a number).
func kindOf(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	switch v[0] {
	case '"', '{', '[', 'n', 't', 'f':
		return v[0]
	}
	return '0'
}
