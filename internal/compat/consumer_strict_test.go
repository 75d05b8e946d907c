package compat

import (
	"bytes"
	"strings"
	"testing"
)

// TestConsumerStrictFlag: --strict (issue 33 item 8) is parsed and marked
// as kbench's own in --help, and --timeout's help no longer promises exit 1.
func TestConsumerStrictFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"--bootstrap-server", "b:9092", "--topic", "t", "--messages", "10"}, false},
		{[]string{"--bootstrap-server", "b:9092", "--topic", "t", "--messages", "10", "--strict"}, true},
	} {
		c, err := ParseConsumerArgs(tt.args, func(int) int { return 1 })
		if err != nil {
			t.Fatal(err)
		}
		if c.Strict != tt.want {
			t.Errorf("%v: strict %v, want %v", tt.args, c.Strict, tt.want)
		}
	}
	var b bytes.Buffer
	Usage(&b, ConsumerUsage, ConsumerOptions)
	if !strings.Contains(b.String(), "--strict") || !strings.Contains(b.String(), "[kbench] Exit with status 1 when --timeout") {
		t.Errorf("--help:\n%s", b.String())
	}
	if strings.Contains(b.String(), "kbench then exits with status 1") {
		t.Error("--timeout's help still promises exit 1")
	}
}
