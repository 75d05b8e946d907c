package kafkaconf

import (
	"strings"
	"testing"
)

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		in      string
		module  string
		options map[string]string
		err     string
	}{
		{`org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="s3cr=t;x";`,
			plainModule, map[string]string{"username": "alice", "password": "s3cr=t;x"}, ""},
		{"  " + scramModule + "  required\n  username=bob\n  password=\"a \\\"quoted\\\" one\" ;  ",
			scramModule, map[string]string{"username": "bob", "password": `a "quoted" one`}, ""},
		{iamModule + " required;", iamModule, map[string]string{}, ""},
		{plainModule + ` required username="alice"`, "", nil, "expected ';' at the end"},
		{plainModule + ` username="alice";`, "", nil, "at character 57: expected the control flag"},
		{plainModule + ` required username="alice;`, "", nil, "expected the closing '\"'"},
		{plainModule + ` required username;`, "", nil, "expected '=' after username"},
		{plainModule + ` required a=1; other required b=2;`, "", nil, "nothing after ';'"},
		{"", "", nil, "at character 1: expected a login module class name"},
	}
	for _, tt := range tests {
		e, err := parseJAAS(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseJAAS(%q): %v, want an error with %q", tt.in, err, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), "alice") {
				t.Errorf("the error shows the value: %v", err)
			}
			continue
		}
		if err != nil || e.Module != tt.module || len(e.Options) != len(tt.options) {
			t.Errorf("parseJAAS(%q) = %+v, %v", tt.in, e, err)
			continue
		}
		for k, v := range tt.options {
			if e.Options[k] != v {
				t.Errorf("parseJAAS(%q): %s = %q, want %q", tt.in, k, e.Options[k], v)
			}
		}
	}
}
