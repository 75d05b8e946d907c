package compat

import (
	"strings"
	"testing"
)

// TestInt64TooLarge: regression: --num-records 99999999999999999999 was
// "not a whole number"; it is one, too large.
func TestInt64TooLarge(t *testing.T) {
	a := &Args{values: map[string][]string{"--num-records": {"99999999999999999999"}, "--x": {"-99999999999999999999"}, "--y": {"1.5"}}}
	for name, want := range map[string]string{
		"--num-records": `option --num-records: "99999999999999999999" is too large: at most 9223372036854775807`,
		"--x":           `is too small: at least -9223372036854775808`,
		"--y":           `"1.5" is not a whole number`,
	} {
		if _, err := a.Int64(name, 0); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}
