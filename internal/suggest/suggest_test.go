package suggest

import "testing"

func TestNearest(t *testing.T) {
	t.Parallel()
	known := []string{"linger.ms", "batch.size", "acks", "buffer.memory", "--num-records", "--record-size"}
	tests := []struct{ name, want string }{
		{"linger.ns", "linger.ms"},
		{"lingr.ms", "linger.ms"},
		{"batch_size", "batch.size"},
		{"ack", "acks"},
		{"--num-record", "--num-records"},
		{"--recordsize", "--record-size"},
		{"BATCH.SIZE", "batch.size"},
		{"completely.unrelated.name", ""},
		{"zzz", ""},
		{"linger", "linger.ms"}, // a long shared prefix
		{"buffer.memory.size", "buffer.memory"},
	}
	for _, tt := range tests {
		if got := Nearest(tt.name, known); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := Nearest("x", nil); got != "" {
		t.Errorf("no candidates: got %q", got)
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"acks", "acks", 0}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q,%q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestHint: the one wording of "did you mean", quoted for names inside a
// sentence and bare for flags and properties.
func TestHint(t *testing.T) {
	t.Parallel()
	known := []string{"acks", "--topic", "producer-perf-test"}
	tests := []struct {
		name  string
		style Style
		want  string
	}{
		{"ack", Quoted, `did you mean "acks"?`},
		{"ack", Bare, "did you mean acks?"},
		{"--topik", Bare, "did you mean --topic?"},
		{"producr-perf-test", Quoted, `did you mean "producer-perf-test"?`},
		{"zzz", Quoted, ""},
	}
	for _, tt := range tests {
		if got := Hint(tt.name, known, tt.style); got != tt.want {
			t.Errorf("Hint(%q, %v) = %q, want %q", tt.name, tt.style, got, tt.want)
		}
	}
	if got := Mean("", Bare); got != "" {
		t.Errorf("Mean of no suggestion = %q", got)
	}
}
