package kafkaconf

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/kbench/kbench/internal/infile"
)

// Trust and key stores as the Java client reads them: JKS (Java's
// default type), PKCS12 and PEM files, or PEM text inline. JKS comes from
// keystore-go and PKCS12 from go-pkcs12 (the formats are not parsed here).

// storeType is a keystore or truststore type, upper-cased; a file whose
// content is PEM counts as PEM when no type was given.
func storeType(given string, explicit bool, data []byte) string {
	t := strings.ToUpper(strings.TrimSpace(given))
	if !explicit && bytes.Contains(data, []byte("-----BEGIN ")) {
		return "PEM"
	}
	return t
}

// loadTrust reads trusted certificates from a store's content.
func loadTrust(typ string, data []byte, password string) ([]*x509.Certificate, error) {
	switch typ {
	case "PEM":
		return pemCerts(data)
	case "PKCS12":
		certs, err := pkcs12.DecodeTrustStore(data, password)
		if err != nil {
			// A store written with a key entry is a keystore; take its certificates.
			_, cert, cas, err2 := pkcs12.DecodeChain(data, password)
			if err2 != nil {
				return nil, storeErr("PKCS12", err)
			}
			return append([]*x509.Certificate{cert}, cas...), nil
		}
		return certs, nil
	case "JKS":
		ks := keystore.New()
		if err := ks.Load(bytes.NewReader(data), []byte(password)); err != nil {
			return nil, storeErr("JKS", err)
		}
		var out []*x509.Certificate
		for _, alias := range ks.Aliases() {
			if e, err := ks.GetTrustedCertificateEntry(alias); err == nil {
				c, err := x509.ParseCertificate(e.Certificate.Content)
				if err != nil {
					return nil, fmt.Errorf("JKS entry %q: %w", alias, err)
				}
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil, errors.New("the JKS store holds no trusted certificate entry")
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %q is not JKS, PKCS12 or PEM", typ)
}

// loadKey reads a client certificate chain and its private key.
func loadKey(typ string, data []byte, storePassword, keyPassword string) (tls.Certificate, error) {
	switch typ {
	case "PEM":
		return pemKeyPair(data, data)
	case "PKCS12":
		key, cert, cas, err := pkcs12.DecodeChain(data, storePassword)
		if err != nil {
			return tls.Certificate{}, storeErr("PKCS12", err)
		}
		return chainOf(key, append([]*x509.Certificate{cert}, cas...))
	case "JKS":
		ks := keystore.New()
		if err := ks.Load(bytes.NewReader(data), []byte(storePassword)); err != nil {
			return tls.Certificate{}, storeErr("JKS", err)
		}
		if keyPassword == "" {
			keyPassword = storePassword // Java's rule when ssl.key.password is not set
		}
		for _, alias := range ks.Aliases() {
			if !ks.IsPrivateKeyEntry(alias) {
				continue
			}
			e, err := ks.GetPrivateKeyEntry(alias, []byte(keyPassword))
			if err != nil {
				return tls.Certificate{}, fmt.Errorf("JKS key entry %q: %w (check ssl.key.password)", alias, err)
			}
			key, err := x509.ParsePKCS8PrivateKey(e.PrivateKey)
			if err != nil {
				return tls.Certificate{}, fmt.Errorf("JKS key entry %q: %w", alias, err)
			}
			var chain []*x509.Certificate
			for _, c := range e.CertificateChain {
				xc, err := x509.ParseCertificate(c.Content)
				if err != nil {
					return tls.Certificate{}, fmt.Errorf("JKS key entry %q: %w", alias, err)
				}
				chain = append(chain, xc)
			}
			return chainOf(key, chain)
		}
		return tls.Certificate{}, errors.New("the JKS store holds no private key entry")
	}
	return tls.Certificate{}, fmt.Errorf("type %q is not JKS, PKCS12 or PEM", typ)
}

func storeErr(typ string, err error) error {
	if strings.Contains(strings.ToLower(err.Error()), "password") || strings.Contains(err.Error(), "digest") || strings.Contains(err.Error(), "integrity") {
		return fmt.Errorf("cannot open the %s store: wrong password? (%v)", typ, err)
	}
	return fmt.Errorf("cannot read the %s store: %v", typ, err)
}

func chainOf(key any, chain []*x509.Certificate) (tls.Certificate, error) {
	if len(chain) == 0 {
		return tls.Certificate{}, errors.New("the key has no certificate")
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return tls.Certificate{}, fmt.Errorf("unsupported private key type %T", key)
	}
	out := tls.Certificate{PrivateKey: signer, Leaf: chain[0]}
	for _, c := range chain {
		out.Certificate = append(out.Certificate, c.Raw)
	}
	return out, nil
}

// pemBlock is a PEM block without headers, its base64 split by any
// whitespace: a value continued over lines with backslashes in a Java
// properties file reaches kbench as one line ("-----BEGIN PRIVATE KEY-----
// MIIE... -----END PRIVATE KEY-----"), and Kafka's own parser
// (DefaultSslEngineFactory.PemParser) reads it so.
var pemBlock = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\s]*?)-----END ([A-Z0-9 ]+)-----`)

// javaPEM rewrites every headerless PEM block into the line form Go's
// encoding/pem reads; blocks with headers (Proc-Type) stay as they are.
func javaPEM(data []byte) []byte {
	return pemBlock.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := pemBlock.FindSubmatch(m)
		if !bytes.Equal(sub[1], sub[3]) {
			return m
		}
		b64 := bytes.Join(bytes.Fields(sub[2]), nil)
		var out bytes.Buffer
		fmt.Fprintf(&out, "-----BEGIN %s-----\n", sub[1])
		for len(b64) > 0 {
			n := min(64, len(b64))
			out.Write(b64[:n])
			out.WriteByte('\n')
			b64 = b64[n:]
		}
		fmt.Fprintf(&out, "-----END %s-----\n", sub[3])
		return out.Bytes()
	})
}

func pemCerts(data []byte) ([]*x509.Certificate, error) {
	data = javaPEM(data)
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate (-----BEGIN CERTIFICATE-----) found")
	}
	return out, nil
}

// pemKeyPair reads a certificate chain and an unencrypted private key
// from PEM text (they may be the same text).
func pemKeyPair(certPEM, keyPEM []byte) (tls.Certificate, error) {
	certPEM, keyPEM = javaPEM(certPEM), javaPEM(keyPEM)
	for rest := keyPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(b.Headers["Proc-Type"], "ENCRYPTED") {
			return tls.Certificate{}, errors.New("the PEM private key is encrypted; kbench reads unencrypted PKCS#8 or PKCS#1 keys (decrypt it with: openssl pkcs8 -in key.pem -out plain.pem)")
		}
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, err
	}
	return c, nil
}

// readStore reads a store file named by a property.
func readStore(path string) ([]byte, error) {
	data, err := infile.Read(path, MaxStoreFile, "a key or trust store")
	if err != nil {
		return nil, fmt.Errorf("cannot read it: %w", err)
	}
	return data, nil
}
