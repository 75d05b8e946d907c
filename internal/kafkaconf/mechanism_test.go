package kafkaconf

import (
	"strings"
	"testing"
)

// TestMechanismWithoutSASL: regression: sasl.mechanism=BOGUS without SASL
// was warned as "has no effect with security.protocol=PLAINTEXT (it applies
// with SASL_PLAINTEXT or SASL_SSL)", which it would not: with SASL it is an
// error. A mechanism kbench speaks keeps the plain warning.
func TestMechanismWithoutSASL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mech, want, not string
	}{
		{"BOGUS", `property "sasl.mechanism" (--producer-props): "BOGUS" is not a mechanism kbench speaks (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM), and has no effect with security.protocol=PLAINTEXT anyway; ignored`, "it applies with"},
		{"GSSAPI", `"GSSAPI" is not a mechanism kbench speaks`, "it applies with"},
		{"PLAIN", "has no effect with security.protocol=PLAINTEXT (it applies with SASL_PLAINTEXT or SASL_SSL); ignored", "not a mechanism"},
	}
	for _, tt := range tests {
		t.Run(tt.mech, func(t *testing.T) {
			t.Parallel()
			_, warns, err := ParseProducer(pairs(t, "bootstrap.servers=127.0.0.1:9092", "sasl.mechanism="+tt.mech))
			if err != nil {
				t.Fatal(err)
			}
			got := joinWarnings(warns)
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
				t.Errorf("warnings:\n%s\nwant %q and not %q", got, tt.want, tt.not)
			}
		})
	}
}
