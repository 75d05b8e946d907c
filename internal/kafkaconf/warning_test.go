package kafkaconf

import (
	"testing"
	"time"

	"github.com/kbench/kbench/internal/suggest"
)

func TestWarningString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w    Warning
		want string
	}{
		{Warning{"send.buffer.bytes", "--producer-props", "ignored"}, `property "send.buffer.bytes" (--producer-props): ignored`},
		{Warning{"x", "", "ignored"}, `property "x": ignored`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			if got := tt.w.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key    string
		secret bool
	}{
		{"sasl.jaas.config", true},
		{"ssl.keystore.password", true},
		{"ssl.key.password", true},
		{"sasl.oauthbearer.token.endpoint.url", true},
		{"sasl.client.secret", true},
		{"ssl.keystore.key", true},
		{"SSL.TRUSTSTORE.PASSWORD", true},
		{"ssl.truststore.location", false},
		{"acks", false},
		{"key.serializer", false},
		{"partitioner.ignore.keys", false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			want := "v"
			if tt.secret {
				want = "[redacted]"
			}
			if got := redact(tt.key, "v"); got != want {
				t.Errorf("redact(%q) = %q, want %q", tt.key, got, want)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	known := keys(producerProps())
	tests := []struct{ key, want string }{
		{"linger", "linger.ms"},
		{"lingerms", "linger.ms"},
		{"batch.sise", "batch.size"},
		{"ack", "acks"},
		{"ACKS", "acks"},
		{"compression", "compression.type"},
		{"max.in.flight.requests", "max.in.flight.requests.per.connection"},
		{"request.timeout", "request.timeout.ms"},
		{"foo", ""},
		{"zzzzzzzzzz", ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			if got := suggest.Nearest(tt.key, known); got != tt.want {
				t.Errorf("suggest(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

func TestJavaBackoff(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	tests := []struct {
		name      string
		base, max time.Duration
		fails     int
		lo, hi    time.Duration
	}{
		{"first retry is the base, jittered", 100 * ms, time.Second, 1, 80 * ms, 120 * ms},
		{"doubles", 100 * ms, time.Second, 3, 320 * ms, 480 * ms},
		{"capped", 100 * ms, time.Second, 10, 800 * ms, time.Second},
		{"huge failure count", 100 * ms, time.Second, 1 << 20, 800 * ms, time.Second},
		{"static when base above max", 2 * time.Second, time.Second, 5, time.Second, time.Second},
		{"zero base", 0, time.Second, 3, 0, 0},
		{"zero failures", 100 * ms, time.Second, 0, 80 * ms, 120 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fn := javaBackoff(tt.base, tt.max)
			for range 100 {
				if got := fn(tt.fails); got < tt.lo || got > tt.hi {
					t.Fatalf("backoff(%d) = %v, want within [%v, %v]", tt.fails, got, tt.lo, tt.hi)
				}
			}
		})
	}
}

func TestCompressionLevels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		java, want int
		fn         func(int) int
	}{
		{"lz4 default is fast", 9, 0, lz4Level},
		{"lz4 1", 1, 1 << 9, lz4Level},
		{"lz4 8", 8, 1 << 16, lz4Level},
		{"lz4 17 capped", 17, 1 << 17, lz4Level},
		{"zstd negative", -5, 1, zstdLevel},
		{"zstd default", 3, 2, zstdLevel},
		{"zstd 6", 6, 3, zstdLevel},
		{"zstd 22", 22, 4, zstdLevel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.fn(tt.java); got != tt.want {
				t.Errorf("level(%d) = %d, want %d", tt.java, got, tt.want)
			}
		})
	}
}

func TestParseISODuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"PT1H", time.Hour, true},
		{"P1D", 24 * time.Hour, true},
		{"P1DT2H3M4.5S", 26*time.Hour + 3*time.Minute + 4500*time.Millisecond, true},
		{"pt30m", 30 * time.Minute, true},
		{"PT0S", 0, true},
		{"P", 0, false},
		{"PT", 0, false},
		{"1H", 0, false},
		{"PT1D", 0, false},
		{"P1H", 0, false},
		{"PT-1H", 0, false},
		{"PT1.5H", 0, false},
		{"P1W", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := parseISODuration(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("parseISODuration(%q) = %v, %v; want %v, ok=%v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}
