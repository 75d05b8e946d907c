package sizing

import "testing"

func TestFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, got, want string
	}{
		{"integer", num(25000000), "25,000,000"},
		{"small integer", num(999), "999"},
		{"fraction", num(8333.333), "8,333.33"},
		{"half", num(2.5), "2.5"},
		{"zero", num(0), "0"},
		{"rate", both(25e6, 1, "/s"), "25.0 MB/s (23.8 MiB/s)"},
		{"storage", both(15.12e12, 2, ""), "15.12 TB (13.75 TiB)"},
		{"under 1000 bytes", both(512, 1, ""), "512 B"},
		{"between 1000 and 1024", both(1000, 1, ""), "1.0 KB (1,000 B)"},
		{"exact", exact(18.75e6, 1, "/s"), "18,750,000 B/s = 18.8 MB/s (17.9 MiB/s)"},
		{"exact zero", exact(0, 1, "/s"), "0 B/s"},
		{"bits", bits(18.75e6), "150 Mbit/s"},
		{"gigabits", bits(250e6), "2 Gbit/s"},
		{"percent", pct(0.3), "30%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.got != tt.want {
				t.Fatalf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
