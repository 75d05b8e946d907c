package userr

import (
	"errors"
	"fmt"
	"testing"
)

func TestIs(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", base, false},
		{"marked", New(base), true},
		{"formatted", Errorf("bad flag --x: %w", base), true},
		{"wrapped marked", fmt.Errorf("ctx: %w", New(base)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Is(tt.err); got != tt.want {
				t.Fatalf("Is(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
	if New(nil) != nil {
		t.Fatal("New(nil) must be nil")
	}
	if !errors.Is(New(base), base) {
		t.Fatal("New must keep the wrapped error reachable")
	}
}
