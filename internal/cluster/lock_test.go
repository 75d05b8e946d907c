package cluster

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestLockFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	ctx := context.Background()
	unlock, err := lockFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := lockFile(short, path); err == nil {
		t.Fatal("second lock must wait while the first is held")
	}
	unlock()
	unlock2, err := lockFile(ctx, path)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}

func TestTailLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb", 5, "a\nb"},
		{"", 3, ""},
	}
	for _, tt := range tests {
		if got := tailLines(tt.in, tt.n); got != tt.want {
			t.Errorf("tailLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
