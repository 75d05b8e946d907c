package serde

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// parseJSON decodes one rendered value, numbers kept as json.Number so
// that longs keep every digit.
func parseJSON(js []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("the rendered value is not JSON: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("the rendered value is more than one JSON value")
	}
	return v, nil
}

// jsonKind names a JSON value's type for errors.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// checkJSONText says what is wrong with a schema's text that is not one
// JSON value, before a parser does in its own words: hamba/avro called an
// empty or truncated file "avro: unknown type:" and echoed it whole.
func checkJSONText(text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("it is empty: write the schema's JSON")
	}
	var v any
	err := json.Unmarshal([]byte(text), &v)
	var syn *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syn) && syn.Offset >= int64(len(text)), err.Error() == "unexpected end of JSON input":
		return errors.New("its JSON ends before it is complete (a bracket or brace is not closed): is the file truncated?")
	case errors.As(err, &syn):
		line, col := lineCol(text, int(syn.Offset))
		return fmt.Errorf("it is not JSON: line %d, column %d: %v", line, col, syn)
	}
	return fmt.Errorf("it is not JSON: %w", err)
}

// lineCol is the 1-based line and column of byte offset off in text (the
// byte before it: a SyntaxError's Offset is past the bad byte).
func lineCol(text string, off int) (line, col int) {
	off = min(max(off-1, 0), len(text))
	line = 1 + strings.Count(text[:off], "\n")
	return line, off - strings.LastIndexByte(text[:off], '\n')
}

// sortedKeys are an object's keys in order: the first problem found is
// the same every time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
