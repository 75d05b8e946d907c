// Package certs makes a throwaway certificate authority and the
// certificates a local secured cluster needs (a broker certificate for
// 127.0.0.1 and localhost, a client certificate for mutual TLS), and
// writes them as PEM, PKCS12 (go-pkcs12) and JKS (keystore-go) files, the
// three store types Java clients are configured with.
package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/pavlo-v-chernykh/keystore-go/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// Pair is a certificate and its key.
type Pair struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
}

// NewCA makes a self-signed certificate authority valid for a year.
func NewCA(name string) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"kbench"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(1, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return Pair{}, fmt.Errorf("create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	return Pair{Cert: cert, Key: key}, err
}

// Issue makes a certificate signed by ca for a server (with the host names
// and addresses given) or a client (none given).
func (ca Pair) Issue(name string, hosts ...string) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name, Organization: []string{"kbench"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(hosts) > 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return Pair{}, fmt.Errorf("create certificate for %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	return Pair{Cert: cert, Key: key}, err
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

// CertPEM is the certificate as PEM.
func (p Pair) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.Cert.Raw})
}

// KeyPEM is the private key as unencrypted PKCS#8 PEM.
func (p Pair) KeyPEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(p.Key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// WritePEM writes the key and the certificate chain (p, then ca) into one
// PEM file: a Java PEM keystore (ssl.keystore.type=PEM) reads it as is.
func (p Pair) WritePEM(path string, ca Pair) error {
	key, err := p.KeyPEM()
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(append(key, p.CertPEM()...), ca.CertPEM()...), 0o600)
}

// WritePKCS12 writes a PKCS12 keystore with p's key and chain.
func (p Pair) WritePKCS12(path string, ca Pair, password string) error {
	data, err := pkcs12.Modern.Encode(p.Key, p.Cert, []*x509.Certificate{ca.Cert}, password)
	if err != nil {
		return fmt.Errorf("encode PKCS12 keystore: %w", err)
	}
	return os.WriteFile(path, data, 0o600)
}

// WriteJKS writes a JKS keystore with p's key and chain (the key entry's
// password is the store's).
func (p Pair) WriteJKS(path string, ca Pair, password string) error {
	der, err := x509.MarshalPKCS8PrivateKey(p.Key)
	if err != nil {
		return err
	}
	ks := keystore.New()
	entry := keystore.PrivateKeyEntry{CreationTime: time.Now(), PrivateKey: der, CertificateChain: []keystore.Certificate{
		{Type: "X509", Content: p.Cert.Raw}, {Type: "X509", Content: ca.Cert.Raw},
	}}
	if err := ks.SetPrivateKeyEntry("kbench", entry, []byte(password)); err != nil {
		return fmt.Errorf("JKS key entry: %w", err)
	}
	return writeJKS(path, ks, password)
}

// WriteTrustPEM writes ca's certificate as a PEM trust store.
func (ca Pair) WriteTrustPEM(path string) error { return os.WriteFile(path, ca.CertPEM(), 0o644) }

// WriteTrustPKCS12 writes ca's certificate as a PKCS12 trust store.
func (ca Pair) WriteTrustPKCS12(path, password string) error {
	data, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{ca.Cert}, password)
	if err != nil {
		return fmt.Errorf("encode PKCS12 trust store: %w", err)
	}
	return os.WriteFile(path, data, 0o644)
}

// WriteTrustJKS writes ca's certificate as a JKS trust store.
func (ca Pair) WriteTrustJKS(path, password string) error {
	ks := keystore.New()
	if err := ks.SetTrustedCertificateEntry("kbench-ca", keystore.TrustedCertificateEntry{
		CreationTime: time.Now(), Certificate: keystore.Certificate{Type: "X509", Content: ca.Cert.Raw},
	}); err != nil {
		return err
	}
	return writeJKS(path, ks, password)
}

func writeJKS(path string, ks keystore.KeyStore, password string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := ks.Store(f, []byte(password)); err != nil {
		f.Close()
		return fmt.Errorf("write JKS store: %w", err)
	}
	return f.Close()
}
