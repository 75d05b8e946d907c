package kafkaconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbench/kbench/internal/certs"
)

// testPKI writes a CA, a server certificate for 127.0.0.1 and a client
// certificate, with the client's stores in every type.
type testPKI struct {
	dir           string
	ca, server    certs.Pair
	client, rogue certs.Pair
}

func newPKI(t *testing.T) *testPKI {
	t.Helper()
	ca, err := certs.NewCA("kbench test CA")
	if err != nil {
		t.Fatal(err)
	}
	server, err := ca.Issue("broker", "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	client, err := ca.Issue("client")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := certs.NewCA("someone else")
	rogue, _ := other.Issue("rogue", "127.0.0.1")
	p := &testPKI{dir: t.TempDir(), ca: ca, server: server, client: client, rogue: rogue}
	for _, err := range []error{
		ca.WriteTrustPEM(p.path("ca.pem")), ca.WriteTrustPKCS12(p.path("trust.p12"), "trustpw"), ca.WriteTrustJKS(p.path("trust.jks"), "trustpw"),
		client.WritePEM(p.path("client.pem"), ca), client.WritePKCS12(p.path("client.p12"), ca, "keypw"), client.WriteJKS(p.path("client.jks"), ca, "keypw"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *testPKI) path(name string) string { return filepath.Join(p.dir, name) }

// handshake runs a TLS server with cert (asking for a client certificate
// from the CA when mutual) and dials it with the client configuration
// the properties give.
func handshake(t *testing.T, p *testPKI, cert certs.Pair, mutual bool, props ...string) error {
	t.Helper()
	pr, _, err := ParseProducer(pairs(t, append([]string{"bootstrap.servers=127.0.0.1:9092", "security.protocol=SSL"}, props...)...))
	if err != nil {
		return err
	}
	keyPEM, _ := cert.KeyPEM()
	sc, err := tls.X509KeyPair(cert.CertPEM(), keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	scfg := &tls.Config{Certificates: []tls.Certificate{sc}}
	if mutual {
		pool := x509.NewCertPool()
		pool.AddCert(p.ca.Cert)
		scfg.ClientCAs, scfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", scfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	serverErr := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			err = c.(*tls.Conn).Handshake()
			c.Close()
		}
		serverErr <- err
	}()
	ccfg := pr.security.tls.Clone()
	ccfg.ServerName = "127.0.0.1" // franz-go sets the broker's host
	c, err := tls.Dial("tcp", ln.Addr().String(), ccfg)
	if err == nil {
		err = c.Handshake()
		if err == nil {
			// TLS 1.3 reports a refused client certificate on the first read.
			_, err = c.Read(make([]byte, 1))
			if errors.Is(err, net.ErrClosed) || err != nil && strings.Contains(err.Error(), "EOF") {
				err = nil
			}
		}
		c.Close()
	}
	if serr := <-serverErr; err == nil && serr != nil {
		err = serr
	}
	return err
}

func TestTLSStores(t *testing.T) {
	p := newPKI(t)
	trust := map[string][]string{
		"PEM file":      {"ssl.truststore.location=" + p.path("ca.pem"), "ssl.truststore.type=PEM"},
		"PEM sniffed":   {"ssl.truststore.location=" + p.path("ca.pem")},
		"PEM inline":    {"ssl.truststore.certificates=" + string(p.ca.CertPEM())},
		"PKCS12":        {"ssl.truststore.location=" + p.path("trust.p12"), "ssl.truststore.type=PKCS12", "ssl.truststore.password=trustpw"},
		"JKS (default)": {"ssl.truststore.location=" + p.path("trust.jks"), "ssl.truststore.password=trustpw"},
	}
	for name, props := range trust {
		t.Run("trust "+name, func(t *testing.T) {
			if err := handshake(t, p, p.server, false, props...); err != nil {
				t.Fatalf("handshake: %v", err)
			}
			err := handshake(t, p, p.rogue, false, props...)
			if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
				t.Fatalf("a server certificate from another CA: %v, want it refused", err)
			}
		})
	}
	keyPEM, _ := p.client.KeyPEM()
	keys := map[string][]string{
		"PEM file":   {"ssl.keystore.location=" + p.path("client.pem"), "ssl.keystore.type=PEM"},
		"PEM inline": {"ssl.keystore.certificate.chain=" + string(p.client.CertPEM()), "ssl.keystore.key=" + string(keyPEM)},
		"PKCS12":     {"ssl.keystore.location=" + p.path("client.p12"), "ssl.keystore.type=PKCS12", "ssl.keystore.password=keypw"},
		"JKS":        {"ssl.keystore.location=" + p.path("client.jks"), "ssl.keystore.type=JKS", "ssl.keystore.password=keypw"},
	}
	for name, props := range keys {
		t.Run("mutual "+name, func(t *testing.T) {
			props := append([]string{"ssl.truststore.location=" + p.path("ca.pem")}, props...)
			if err := handshake(t, p, p.server, true, props...); err != nil {
				t.Fatalf("mutual TLS handshake: %v", err)
			}
		})
	}
	t.Run("mutual without a key store", func(t *testing.T) {
		if err := handshake(t, p, p.server, true, "ssl.truststore.location="+p.path("ca.pem")); err == nil {
			t.Fatal("a server requiring a client certificate accepted none")
		}
	})
	t.Run("host name", func(t *testing.T) {
		wrongHost, _ := p.ca.Issue("elsewhere", "broker.example.com")
		err := handshake(t, p, wrongHost, false, "ssl.truststore.location="+p.path("ca.pem"))
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1") {
			t.Fatalf("a certificate for another host: %v, want it refused", err)
		}
		_, warns, _ := ParseProducer(pairs(t, "bootstrap.servers=127.0.0.1:9092", "security.protocol=SSL", "ssl.endpoint.identification.algorithm="))
		if !strings.Contains(joinWarnings(warns), "not their host names") {
			t.Errorf("no warning for turning host name checks off: %q", joinWarnings(warns))
		}
		if err := handshake(t, p, wrongHost, false, "ssl.truststore.location="+p.path("ca.pem"), "ssl.endpoint.identification.algorithm="); err != nil {
			t.Fatalf("host name checks off: %v", err)
		}
		if err := handshake(t, p, p.rogue, false, "ssl.truststore.location="+p.path("ca.pem"), "ssl.endpoint.identification.algorithm="); err == nil {
			t.Fatal("host name checks off also turned chain checks off")
		}
	})
	bad := []struct {
		name  string
		props []string
		want  string
	}{
		{"wrong PKCS12 password", []string{"ssl.truststore.location=" + p.path("trust.p12"), "ssl.truststore.type=PKCS12", "ssl.truststore.password=nope"},
			"cannot open the PKCS12 store: wrong password?"},
		{"wrong JKS password", []string{"ssl.keystore.location=" + p.path("client.jks"), "ssl.keystore.password=nope"}, "ssl.keystore.location=" + p.path("client.jks") + ": cannot"},
		{"missing file", []string{"ssl.truststore.location=/no/such.jks"}, "ssl.truststore.location=/no/such.jks: cannot read it"},
		{"chain without key", []string{"ssl.keystore.certificate.chain=" + string(p.client.CertPEM())}, "give ssl.keystore.certificate.chain and ssl.keystore.key together"},
		{"bad type", []string{"ssl.truststore.location=" + p.path("trust.jks"), "ssl.truststore.type=BKS"}, `type "BKS" is not JKS, PKCS12 or PEM`},
		{"old TLS", []string{"ssl.enabled.protocols=TLSv1.1"}, `"TLSv1.1" is not a TLS version kbench allows`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseProducer(pairs(t, append([]string{"bootstrap.servers=127.0.0.1:9092", "security.protocol=SSL"}, tt.props...)...))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "keypw") || strings.Contains(err.Error(), "trustpw") {
				t.Errorf("the error shows a password: %v", err)
			}
		})
	}
}
