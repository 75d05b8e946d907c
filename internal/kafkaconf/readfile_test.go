package kafkaconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/userr"
)

// TestReadFileBounded: regression: --command-config /dev/zero read until
// Go ran out of memory. A properties file past 1 MiB (or an endless one)
// is the user's error, naming the file and the limit; one at the limit is
// read.
func TestReadFileBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	atLimit := filepath.Join(dir, "at-limit.properties")
	line := "# " + strings.Repeat("x", 1021) + "\n" // 1 KiB
	if err := os.WriteFile(atLimit, []byte("acks=1\n"+strings.Repeat(line, 1023)+strings.Repeat("#", 1024-7)), 0o644); err != nil {
		t.Fatal(err)
	}
	over := filepath.Join(dir, "over.properties")
	if err := os.WriteFile(over, []byte(strings.Repeat(line, 1024)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // "": read
	}{
		{"at the limit", atLimit, ""},
		{"past the limit", over, over + " is larger than 1 MiB, the most kbench reads for a properties file"},
		{"endless", "/dev/zero", "/dev/zero is larger than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			props, err := ReadFile(tt.path)
			if tt.want == "" {
				if err != nil || len(props) != 1 {
					t.Fatalf("props %v, err %v; want acks=1", props, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !userr.Is(err) {
				t.Fatalf("err = %v, want the user's error saying %q", err, tt.want)
			}
		})
	}
}
