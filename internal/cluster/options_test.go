package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    []Opt
		wantOpt string // the OptionError's Option, "" for valid
	}{
		{"defaults", nil, ""},
		{"three brokers", []Opt{WithBrokers(3)}, ""},
		{"nine brokers", []Opt{WithBrokers(MaxBrokers)}, ""},
		{"zero brokers", []Opt{WithBrokers(0)}, "brokers"},
		{"ten brokers", []Opt{WithBrokers(MaxBrokers + 1)}, "brokers"},
		{"heap 512m", []Opt{WithHeap("512m")}, ""},
		{"heap 2G", []Opt{WithHeap("2G")}, ""},
		{"heap 262144k", []Opt{WithHeap("262144k")}, ""},
		// Regression: 128m was accepted, and the broker died of OutOfMemoryError.
		{"heap 128m", []Opt{WithHeap("128m")}, "heap"},
		{"heap 255m", []Opt{WithHeap("255m")}, "heap"},
		{"heap 256m", []Opt{WithHeap("256m")}, ""},
		{"heap bad unit", []Opt{WithHeap("1x")}, "heap"},
		{"heap no unit", []Opt{WithHeap("1024")}, "heap"},
		{"heap too small", []Opt{WithHeap("64m")}, "heap"},
		{"heap sign", []Opt{WithHeap("+1g")}, "heap"},
		{"heap empty", []Opt{WithHeap("")}, "heap"},
		{"name with slash", []Opt{WithName("a/b")}, "name"},
		{"name dot-dot", []Opt{WithName("..")}, "name"},
		{"name ok", []Opt{WithName("bench-2.a_b")}, ""},
		{"kafka 3", []Opt{WithVersion("3.9.0")}, "kafka-version"},
		{"kafka 4.0.0", []Opt{WithVersion("4.0.0")}, ""},
		{"version junk", []Opt{WithVersion("4.1.2</version>")}, "kafka-version"},
		{"reserved prop", []Opt{WithBrokerProps(map[string]string{"listeners": "x"})}, "broker property"},
		{"free prop", []Opt{WithBrokerProps(map[string]string{"num.io.threads": "4"})}, ""},
		// Regression: the error named --start-timeout; the flag of cluster up is --timeout.
		{"zero timeout", []Opt{WithStartTimeout(0)}, "timeout"},
		{"empty cache", []Opt{WithCacheDir("")}, "cache-dir"},
		{"host ip", []Opt{WithHost("10.77.0.1")}, ""},
		{"host ipv6", []Opt{WithHost("fd00::1")}, ""},
		{"host name", []Opt{WithHost("kafka1.example.com")}, ""},
		{"host every address", []Opt{WithHost("0.0.0.0")}, "advertise-host"},
		{"host with port", []Opt{WithHost("10.77.0.1:9092")}, "advertise-host"},
		{"host with scheme", []Opt{WithHost("PLAINTEXT://h")}, "advertise-host"},
		{"host with network faults", []Opt{WithHost("10.77.0.1"), WithNetworkFaults(true), WithProxyCommand("kbench")}, "advertise-host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := newConfig(tt.opts)
			var oe *OptionError
			switch {
			case tt.wantOpt == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantOpt != "" && !errors.As(err, &oe):
				t.Fatalf("err = %v, want an OptionError for %s", err, tt.wantOpt)
			case tt.wantOpt != "" && oe.Option != tt.wantOpt:
				t.Fatalf("OptionError for %q (%v), want %q", oe.Option, err, tt.wantOpt)
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := newConfig([]Opt{WithCacheDir("/c")})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.brokers != 1 || cfg.name != "kbench" || cfg.heap != "1g" || cfg.version != DefaultVersion ||
		cfg.startTimeout != 90*time.Second || cfg.stateDir != "/c/clusters" {
		t.Fatalf("defaults: %+v", cfg)
	}
	cfg, _ = newConfig([]Opt{WithCacheDir("/c"), WithStateDir("/s")})
	if cfg.stateDir != "/s" {
		t.Fatalf("state dir = %q, want /s", cfg.stateDir)
	}
}

func TestParseHeap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{"1g", 1 << 30, ""},
		{"512m", 512 << 20, ""},
		{"512M", 512 << 20, ""},
		{"262144k", 256 << 20, ""},
		{"127m", 0, "at least 256m"},
		{"255m", 0, "at least 256m"},
		{"256m", 256 << 20, ""},
		{"1x", 0, "like 512m"},
		{"g", 0, "like 512m"},
		{"0g", 0, "like 512m"},
		{"99999999999999999g", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := parseHeap(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseHeap(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseHeap(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

// TestCheckName: a bad cluster name is refused with what is wrong with
// it, not only the characters a name may use.
func TestCheckName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"bench-2.a_b", ""},
		{"", "is empty"},
		{"..", `".." is not allowed: it names the parent folder`},
		{".", `"." is not allowed: it names the current folder`},
		{".hidden", "must start with a letter or digit, not '.'"},
		{"-x", "must start with a letter or digit, not '-'"},
		{"a/b", "'/' is not allowed: it separates folders"},
		{"a b", "' ' is not allowed; use letters, digits"},
		{strings.Repeat("a", 65), "is 65 characters long; at most 64"},
	}
	for _, tt := range tests {
		err := CheckName(tt.name)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckName(%q) = %v, want %q", tt.name, err, tt.want)
		}
	}
}
