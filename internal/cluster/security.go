package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/certs"
)

// Security modes of a local cluster: the client listener's protocol.
const (
	SecurityNone    = ""
	SecuritySASLSSL = "sasl_ssl" // TLS and SASL: SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN users
	SecuritySSL     = "ssl"      // mutual TLS: clients must present a certificate from the cluster's CA
)

// SecurityModes lists the modes for messages.
var SecurityModes = []string{SecuritySASLSSL, SecuritySSL}

// The users a secured cluster creates. The password is generated per
// cluster and written only into the cluster's own directory (files
// readable by the owner alone).
const (
	SCRAMUser = "kbench"
	PLAINUser = "kbench-plain"
)

// Secrets are what a secured cluster's clients need, all under its
// directory.
type Secrets struct {
	Dir string `json:"dir"`
	// ClientConfig is a ready client properties file: SCRAM-SHA-512 over
	// TLS for sasl_ssl, the client certificate for ssl.
	ClientConfig string `json:"client_config"`
	// Password is the SCRAM and PLAIN users' password and every store's.
	Password string `json:"-"`
	// Stores and the CA, for clients that want another type.
	CAFile, TrustPKCS12, TrustJKS string `json:"-"`
	KeyPEM, KeyPKCS12, KeyJKS     string `json:"-"`
}

// password is 24 random hex characters.
func newPassword() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// writeSecrets makes the CA, the brokers' certificate and a client
// certificate, in every store type, and the client properties file.
func (c *Cluster) writeSecrets() error {
	dir := filepath.Join(c.Dir, "secrets")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("secured cluster: %w", err)
	}
	pw, err := newPassword()
	if err != nil {
		return err
	}
	ca, err := certs.NewCA("kbench local cluster " + c.Name)
	if err != nil {
		return err
	}
	hosts := []string{"127.0.0.1", "localhost"}
	if h := c.Host(); h != "" {
		hosts = append(hosts, h) // clients elsewhere check the name they dial
	}
	broker, err := ca.Issue("kbench-broker", hosts...)
	if err != nil {
		return err
	}
	client, err := ca.Issue("kbench-client")
	if err != nil {
		return err
	}
	s := &Secrets{Dir: dir, Password: pw,
		CAFile: filepath.Join(dir, "ca.pem"), TrustPKCS12: filepath.Join(dir, "truststore.p12"), TrustJKS: filepath.Join(dir, "truststore.jks"),
		KeyPEM: filepath.Join(dir, "client.pem"), KeyPKCS12: filepath.Join(dir, "client.p12"), KeyJKS: filepath.Join(dir, "client.jks"),
		ClientConfig: filepath.Join(dir, "client.properties"),
	}
	for _, err := range []error{
		ca.WriteTrustPEM(s.CAFile), ca.WriteTrustPKCS12(s.TrustPKCS12, pw), ca.WriteTrustJKS(s.TrustJKS, pw),
		broker.WritePEM(filepath.Join(dir, "broker.pem"), ca),
		client.WritePEM(s.KeyPEM, ca), client.WritePKCS12(s.KeyPKCS12, ca, pw), client.WriteJKS(s.KeyJKS, ca, pw),
		os.WriteFile(filepath.Join(dir, "password"), []byte(pw+"\n"), 0o600),
	} {
		if err != nil {
			return fmt.Errorf("secured cluster: %w", err)
		}
	}
	var props []string
	switch c.Security {
	case SecuritySASLSSL:
		props = []string{
			"# SCRAM-SHA-512 over TLS, as kbench cluster up --security sasl_ssl set it up.",
			"# The PLAIN user " + PLAINUser + " and SCRAM-SHA-256 work too (same password).",
			"security.protocol=SASL_SSL",
			"sasl.mechanism=SCRAM-SHA-512",
			`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="` + SCRAMUser + `" password="` + pw + `";`,
		}
	case SecuritySSL:
		props = []string{
			"# Mutual TLS, as kbench cluster up --security ssl set it up.",
			"security.protocol=SSL",
			"ssl.keystore.type=PKCS12",
			"ssl.keystore.location=" + s.KeyPKCS12,
			"ssl.keystore.password=" + pw,
		}
	}
	props = append(props,
		"ssl.truststore.type=PEM",
		"ssl.truststore.location="+s.CAFile)
	if err := os.WriteFile(s.ClientConfig, []byte(strings.Join(props, "\n")+"\n"), 0o600); err != nil {
		return fmt.Errorf("secured cluster: %w", err)
	}
	c.Secrets = s
	return nil
}

// LoadSecrets reads a secured cluster's password (from its own
// directory) into Secrets, for tests and tools that need the other users.
func (c *Cluster) LoadSecrets() (*Secrets, error) {
	if c.Secrets == nil {
		return nil, fmt.Errorf("cluster %q is not secured", c.Name)
	}
	s := *c.Secrets
	b, err := os.ReadFile(filepath.Join(s.Dir, "password"))
	if err != nil {
		return nil, err
	}
	s.Password = strings.TrimSpace(string(b))
	s.CAFile, s.TrustPKCS12, s.TrustJKS = filepath.Join(s.Dir, "ca.pem"), filepath.Join(s.Dir, "truststore.p12"), filepath.Join(s.Dir, "truststore.jks")
	s.KeyPEM, s.KeyPKCS12, s.KeyJKS = filepath.Join(s.Dir, "client.pem"), filepath.Join(s.Dir, "client.p12"), filepath.Join(s.Dir, "client.jks")
	return &s, nil
}

// securedProps are a secured broker's listener settings: the client
// listener on b.Port (SASL_SSL or SSL), brokers among themselves on a
// PLAINTEXT loopback listener (b.InternalPort) that kbench also probes.
func (c *Cluster) securedProps(b Broker) map[string]string {
	if c.Security == SecurityNone {
		return nil
	}
	s := c.Secrets
	proto := "SASL_SSL"
	if c.Security == SecuritySSL {
		proto = "SSL"
	}
	lower := strings.ToLower(proto)
	p := map[string]string{
		"listeners":                                           fmt.Sprintf("%s://%s,INTERNAL://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", proto, b.Addr(), b.InternalPort, b.ControllerPort),
		"advertised.listeners":                                fmt.Sprintf("%s://%s,INTERNAL://127.0.0.1:%d", proto, b.Addr(), b.InternalPort),
		"listener.security.protocol.map":                      proto + ":" + proto + ",INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"inter.broker.listener.name":                          "INTERNAL",
		"listener.name." + lower + ".ssl.keystore.type":       "PEM",
		"listener.name." + lower + ".ssl.keystore.location":   filepath.Join(s.Dir, "broker.pem"),
		"listener.name." + lower + ".ssl.truststore.type":     "PEM",
		"listener.name." + lower + ".ssl.truststore.location": s.CAFile,
	}
	if b.MTLSPort > 0 {
		p["listeners"] += fmt.Sprintf(",MTLS://127.0.0.1:%d", b.MTLSPort)
		p["advertised.listeners"] += fmt.Sprintf(",MTLS://127.0.0.1:%d", b.MTLSPort)
		p["listener.security.protocol.map"] += ",MTLS:SSL"
		p["listener.name.mtls.ssl.keystore.type"] = "PEM"
		p["listener.name.mtls.ssl.keystore.location"] = filepath.Join(s.Dir, "broker.pem")
		p["listener.name.mtls.ssl.truststore.type"] = "PEM"
		p["listener.name.mtls.ssl.truststore.location"] = s.CAFile
		p["listener.name.mtls.ssl.client.auth"] = "required"
	}
	switch c.Security {
	case SecuritySASLSSL:
		p["sasl.enabled.mechanisms"] = "SCRAM-SHA-512,SCRAM-SHA-256,PLAIN"
		p["listener.name.sasl_ssl.plain.sasl.jaas.config"] = `org.apache.kafka.common.security.plain.PlainLoginModule required user_` + PLAINUser + `="` + s.Password + `";`
		p["listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"] = `org.apache.kafka.common.security.scram.ScramLoginModule required;`
		p["listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config"] = `org.apache.kafka.common.security.scram.ScramLoginModule required;`
	case SecuritySSL:
		p["listener.name.ssl.ssl.client.auth"] = "required"
	}
	return p
}

// scramArgs are the storage tool's arguments creating the SCRAM users.
func (c *Cluster) scramArgs() []string {
	if c.Security != SecuritySASLSSL {
		return nil
	}
	var args []string
	for _, mech := range []string{"SCRAM-SHA-512", "SCRAM-SHA-256"} {
		args = append(args, "--add-scram", mech+"=[name="+SCRAMUser+",password="+c.Secrets.Password+"]")
	}
	return args
}

// ProbeAddr is where kbench checks that broker b answers: the client
// listener, or on a secured cluster the plaintext one brokers use among
// themselves.
func (b Broker) ProbeAddr() string {
	if b.InternalPort > 0 {
		return "127.0.0.1:" + strconv.Itoa(b.InternalPort)
	}
	return b.Addr()
}
