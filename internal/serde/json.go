package serde

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
