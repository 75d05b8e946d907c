package kafkaconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"
)

// tlsConfig builds the client's TLS configuration: the server is verified
// against the trust store (the system's roots without one), its host name
// too unless ssl.endpoint.identification.algorithm is empty (warned).
func tlsConfig(props securityProps) (*tls.Config, []Warning, []error) {
	var warns []Warning
	var errs []error
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if p, ok := props.take("ssl.enabled.protocols"); ok {
		v, err := tlsMinVersion(p.Value)
		if err != nil {
			errs = append(errs, propError(p, err.Error(), "TLSv1.2, TLSv1.3"))
		}
		cfg.MinVersion = v
	}
	if p, ok := props.take("ssl.protocol"); ok {
		if _, err := tlsMinVersion(p.Value); err != nil && p.Value != "TLS" {
			errs = append(errs, propError(p, err.Error(), "TLS, TLSv1.2, TLSv1.3"))
		}
	}
	roots, err := trustRoots(props)
	if err != nil {
		errs = append(errs, err)
	}
	if len(roots) > 0 {
		pool := x509.NewCertPool()
		for _, c := range roots {
			pool.AddCert(c)
		}
		cfg.RootCAs = pool
	}
	cert, ok, err := clientCertificate(props)
	if err != nil {
		errs = append(errs, err)
	}
	if ok {
		cfg.Certificates = []tls.Certificate{cert}
	}
	w, err := hostNameCheck(props, cfg)
	warns = append(warns, w...)
	if err != nil {
		errs = append(errs, err)
	}
	return cfg, warns, errs
}

// trustRoots are the certificates the brokers' chains are checked against:
// ssl.truststore.certificates (PEM), or the store at
// ssl.truststore.location; none means the system's roots.
func trustRoots(props securityProps) ([]*x509.Certificate, error) {
	tsPass, _ := props.take("ssl.truststore.password")
	tsType, tsTypeGiven := props.take("ssl.truststore.type")
	if !tsTypeGiven {
		tsType = Prop{Key: "ssl.truststore.type", Value: "JKS", Source: "default"}
	}
	if p, ok := props.take("ssl.truststore.certificates"); ok {
		certs, err := pemCerts([]byte(p.Value))
		if err != nil {
			return certs, propError(p, err.Error(), "")
		}
		return certs, nil
	}
	p, ok := props.take("ssl.truststore.location")
	if !ok {
		return nil, nil
	}
	data, err := readStore(p.Value)
	var roots []*x509.Certificate
	if err == nil {
		roots, err = loadTrust(storeType(tsType.Value, tsTypeGiven, data), data, tsPass.Value)
	}
	if err != nil {
		return roots, propError(p, err.Error(), "")
	}
	return roots, nil
}

// clientCertificate is the client's own certificate for mutual TLS:
// ssl.keystore.certificate.chain with ssl.keystore.key (PEM), or the store
// at ssl.keystore.location; ok is false when none is given.
func clientCertificate(props securityProps) (cert tls.Certificate, ok bool, err error) {
	ksPass, _ := props.take("ssl.keystore.password")
	keyPass, _ := props.take("ssl.key.password")
	ksType, ksTypeGiven := props.take("ssl.keystore.type")
	if !ksTypeGiven {
		ksType = Prop{Key: "ssl.keystore.type", Value: "JKS", Source: "default"}
	}
	chainP, hasChain := props.take("ssl.keystore.certificate.chain")
	keyP, hasKey := props.take("ssl.keystore.key")
	switch {
	case hasChain != hasKey:
		p := chainP
		if hasKey {
			p = keyP
		}
		return cert, false, propError(p, "give ssl.keystore.certificate.chain and ssl.keystore.key together", "")
	case hasChain:
		if keyPass.Value != "" {
			return cert, false, propError(keyP, "encrypted PEM keys (ssl.key.password) are not supported; give the key unencrypted", "")
		}
		cert, err := pemKeyPair([]byte(chainP.Value), []byte(keyP.Value))
		if err != nil {
			return cert, true, propError(keyP, err.Error(), "")
		}
		return cert, true, nil
	}
	p, ok := props.take("ssl.keystore.location")
	if !ok {
		return cert, false, nil
	}
	data, err := readStore(p.Value)
	if err == nil {
		cert, err = loadKey(storeType(ksType.Value, ksTypeGiven, data), data, ksPass.Value, keyPass.Value)
	}
	if err != nil {
		return cert, true, propError(p, err.Error(), "")
	}
	return cert, true, nil
}

// hostNameCheck applies ssl.endpoint.identification.algorithm: https (the
// default) checks the brokers' host names, empty only their chains
// (warned).
func hostNameCheck(props securityProps, cfg *tls.Config) ([]Warning, error) {
	p, ok := props.take("ssl.endpoint.identification.algorithm")
	if !ok {
		return nil, nil
	}
	switch strings.ToLower(strings.TrimSpace(p.Value)) {
	case "https":
		return nil, nil
	case "":
		verifyChainOnly(cfg)
		return []Warning{{Key: p.Key, Source: p.Source,
			Message: "is empty: the brokers' certificates are still checked against the trust store, but not their host names (anyone with a trusted certificate can pose as a broker); set https to check them"}}, nil
	}
	return nil, propError(p, "unknown algorithm", "https, or empty to skip host name checks")
}

// verifyChainOnly makes cfg check the server's chain against its roots
// without its host name (Java's empty endpoint identification algorithm).
func verifyChainOnly(cfg *tls.Config) {
	roots := cfg.RootCAs
	cfg.InsecureSkipVerify = true // replaced by the check below, which skips only the name
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return fmt.Errorf("the broker sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
		return err
	}
}

func tlsMinVersion(list string) (uint16, error) {
	low := uint16(0)
	for _, v := range strings.Split(list, ",") {
		var ver uint16
		switch strings.TrimSpace(v) {
		case "TLSv1.2":
			ver = tls.VersionTLS12
		case "TLSv1.3":
			ver = tls.VersionTLS13
		case "":
			continue
		default:
			return tls.VersionTLS12, fmt.Errorf("%q is not a TLS version kbench allows", strings.TrimSpace(v))
		}
		if low == 0 || ver < low {
			low = ver
		}
	}
	if low == 0 {
		low = tls.VersionTLS12
	}
	return low, nil
}
