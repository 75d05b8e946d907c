package kadmin

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// explainSecurity turns a failed connection caused by TLS or SASL into
// what to change, naming the properties; ok is false for other failures.
func explainSecurity(err error) (string, bool) {
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordHdr tls.RecordHeaderError
	var ke *kerr.Error
	msg := err.Error()
	switch {
	case errors.As(err, &unknownCA):
		return "the broker's TLS certificate is not trusted (signed by an unknown authority): give its CA in ssl.truststore.location (JKS, PKCS12 or PEM) or ssl.truststore.certificates", true
	case errors.As(err, &hostErr):
		return fmt.Sprintf("the broker's TLS certificate is not valid for %q (it names %s): connect by a name or address in the certificate, or set ssl.endpoint.identification.algorithm= to skip the name check (warned)",
			hostErr.Host, certNames(hostErr.Certificate)), true
	case errors.As(err, &invalid):
		return "the broker's TLS certificate is not valid (" + invalid.Error() + ")", true
	case strings.Contains(msg, "plaintext connection speaking to a tls endpoint"):
		return "the listener speaks TLS: set security.protocol=SSL (or SASL_SSL) with its CA in ssl.truststore.location", true
	case errors.As(err, &recordHdr):
		return "the listener does not speak TLS: use security.protocol=PLAINTEXT or SASL_PLAINTEXT for it, or the broker's SSL listener", true
	case errors.As(err, &ke) && (ke == kerr.SaslAuthenticationFailed || ke == kerr.IllegalSaslState):
		return "authentication failed: check the user name and password in sasl.jaas.config and that sasl.mechanism is one the broker enables (" + ke.Message + ")", true
	case errors.As(err, &ke) && ke == kerr.UnsupportedSaslMechanism:
		return "the broker does not enable this sasl.mechanism: ask its operators which it does (sasl.enabled.mechanisms)", true
	case strings.Contains(msg, "remote error: tls: certificate required") || strings.Contains(msg, "remote error: tls: bad certificate"):
		return "the broker wants a client certificate (mutual TLS): give ssl.keystore.location (JKS, PKCS12 or PEM) or ssl.keystore.certificate.chain and ssl.keystore.key", true
	case errors.As(err, new(*kgo.ErrFirstReadEOF)) && strings.Contains(msg, "SASL"):
		return "the broker closed the connection at once: it may require SASL (security.protocol=SASL_SSL or SASL_PLAINTEXT with sasl.mechanism and sasl.jaas.config) or TLS (security.protocol=SSL)", true
	}
	return "", false
}

func certNames(c *x509.Certificate) string {
	if c == nil {
		return "no names"
	}
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return "no names"
	}
	return strings.Join(names, ", ")
}
