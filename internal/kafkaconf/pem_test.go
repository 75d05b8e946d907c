package kafkaconf

import (
	"os"
	"strings"
	"testing"
)

// TestPEMLineContinuation: regression: PEM keys and certificates given in a
// properties file in Java's line-continuation form (each line of the PEM
// ended with a backslash, as Kafka's documentation shows) were not read; Java
// joins the lines and reads them. Mutual TLS works with the joined values.
func TestPEMLineContinuation(t *testing.T) {
	p := newPKI(t)
	keyPEM, err := p.client.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	continued := func(pem string) string {
		return strings.Join(strings.Split(strings.TrimSpace(pem), "\n"), " \\\n    ")
	}
	file := p.path("client.properties")
	text := "ssl.keystore.type=PEM\n" +
		"ssl.keystore.key=" + continued(string(keyPEM)) + "\n" +
		"ssl.keystore.certificate.chain=" + continued(string(p.client.CertPEM())+string(p.ca.CertPEM())) + "\n" +
		"ssl.truststore.type=PEM\n" +
		"ssl.truststore.certificates=" + continued(string(p.ca.CertPEM())) + "\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	props, err := ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, pr := range props {
		if strings.Contains(pr.Value, "\n") {
			t.Fatalf("%s: the continued lines were not joined: %q", pr.Key, pr.Value)
		}
		pairs = append(pairs, pr.Key+"="+pr.Value)
	}
	if err := handshake(t, p, p.server, true, pairs...); err != nil {
		t.Fatalf("mutual TLS with the continued PEM values: %v", err)
	}
	// The joined form given directly, as --command-property would:
	// "-----BEGIN CERTIFICATE----- MII... -----END CERTIFICATE-----".
	oneLine := strings.Join(strings.Fields(string(p.ca.CertPEM())), " ")
	if err := handshake(t, p, p.server, false, "ssl.truststore.certificates="+oneLine); err != nil {
		t.Fatalf("a one-line PEM certificate: %v", err)
	}
}
