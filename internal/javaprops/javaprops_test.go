package javaprops

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, text string
		want       []Prop
		err        string
	}{
		{"forms and comments", "# c\n! c\na=1\nb: 2\nc 3\n  d = 4 \n", []Prop{
			{"a", "1", "f:3"}, {"b", "2", "f:4"}, {"c", "3", "f:5"}, {"d", "4 ", "f:6"}}, ""},
		{"continuation names its first line", "a=x\\\n   y\nb=\\u00e9\\t", []Prop{{"a", "xy", "f:1"}, {"b", "é\t", "f:3"}}, ""},
		{"twice is listed twice", "a=1\na=2", []Prop{{"a", "1", "f:1"}, {"a", "2", "f:2"}}, ""},
		{"CR line ends", "a=1\rb=2\r\n", []Prop{{"a", "1", "f:1"}, {"b", "2", "f:2"}}, ""},
		{"bad escape names its line", "a=1\nb=\\u12", nil, `f:2: malformed \uXXXX escape "\\u12"`},
		{"empty name", "=v", nil, "f:1: empty property name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.text, "f")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse = %#v (%v), want %#v", got, err, tt.want)
			}
		})
	}
}
