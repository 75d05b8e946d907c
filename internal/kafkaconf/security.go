package kafkaconf

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
)

// security is what security.protocol, ssl.* and sasl.* resolved to.
type security struct {
	tls       *tls.Config // nil without TLS
	mechanism sasl.Mechanism
}

// securityNoEffect are the ssl.* and sasl.* properties kbench accepts and
// ignores, with why.
var securityNoEffect = map[string]string{
	"ssl.cipher.suites":                        "Go's TLS picks among its own secure cipher suites",
	"ssl.keymanager.algorithm":                 "a Java security provider setting",
	"ssl.trustmanager.algorithm":               "a Java security provider setting",
	"ssl.secure.random.implementation":         "a Java security provider setting",
	"ssl.provider":                             "a Java security provider setting",
	"ssl.engine.factory.class":                 "kbench cannot load Java classes",
	"sasl.kerberos.service.name":               "kbench has no Kerberos (GSSAPI)",
	"sasl.kerberos.kinit.cmd":                  "kbench has no Kerberos (GSSAPI)",
	"sasl.kerberos.min.time.before.relogin":    "kbench has no Kerberos (GSSAPI)",
	"sasl.kerberos.ticket.renew.jitter":        "kbench has no Kerberos (GSSAPI)",
	"sasl.kerberos.ticket.renew.window.factor": "kbench has no Kerberos (GSSAPI)",
	"sasl.login.refresh.buffer.seconds":        "a token file is read again for every new connection",
	"sasl.login.refresh.min.period.seconds":    "a token file is read again for every new connection",
	"sasl.login.refresh.window.factor":         "a token file is read again for every new connection",
	"sasl.login.refresh.window.jitter":         "a token file is read again for every new connection",
	"sasl.login.connect.timeout.ms":            "kbench has no login callback",
	"sasl.login.read.timeout.ms":               "kbench has no login callback",
	"sasl.login.retry.backoff.ms":              "kbench has no login callback",
	"sasl.login.retry.backoff.max.ms":          "kbench has no login callback",
}

// checkSecurity judges security.protocol and the ssl.* and sasl.*
// properties together and builds the TLS configuration and SASL
// mechanism; a property that asks for something kbench cannot do is an
// error, never silently ignored.
func (c *Common) checkSecurity(props []Prop) (warns []Warning, errs []error) {
	sp := securityProps{byKey: map[string]Prop{}, used: map[string]bool{}}
	for _, p := range props {
		sp.byKey[p.Key] = p
	}
	proto := c.SecurityProtocol
	c.security = security{}
	if strings.HasSuffix(proto, "SSL") {
		cfg, w, e := tlsConfig(sp)
		warns, errs = append(warns, w...), append(errs, e...)
		c.security.tls = cfg
	}
	if strings.HasPrefix(proto, "SASL_") {
		m, w, e := saslMechanism(proto, sp)
		warns, errs = append(warns, w...), append(errs, e...)
		c.security.mechanism = m
	}
	for _, p := range props {
		if sp.used[p.Key] {
			continue
		}
		if why, ok := securityNoEffect[p.Key]; ok {
			warns = append(warns, Warning{Key: p.Key, Source: p.Source, Message: "known to the Java client but has no effect in kbench (" + why + "); ignored"})
			continue
		}
		need := "SASL_PLAINTEXT or SASL_SSL"
		if strings.HasPrefix(p.Key, "ssl.") {
			need = "SSL or SASL_SSL"
		}
		if isSecurityKey(p.Key) {
			msg := fmt.Sprintf("has no effect with security.protocol=%s (it applies with %s); ignored", proto, need)
			if mech := strings.TrimSpace(p.Value); p.Key == "sasl.mechanism" && !slices.Contains(saslMechanisms, mech) {
				// Not "it applies with SASL_*": there it would be an error.
				msg = fmt.Sprintf("%q is not a mechanism kbench speaks (%s), and has no effect with security.protocol=%s anyway; ignored",
					mech, strings.Join(saslMechanisms, ", "), proto)
			}
			warns = append(warns, Warning{Key: p.Key, Source: p.Source, Message: msg})
			continue
		}
		warns = append(warns, Warning{Key: p.Key, Source: p.Source, Message: "unknown to the Java client (Apache Kafka 4.x); ignored"})
	}
	return warns, errs
}

// securityProps are the properties by key, as the TLS and SASL builders
// read them: each one taken is used, and not warned about.
type securityProps struct {
	byKey map[string]Prop
	used  map[string]bool
}

// take returns property k and marks it used.
func (p securityProps) take(k string) (Prop, bool) {
	v, ok := p.byKey[k]
	if ok {
		p.used[k] = true
	}
	return v, ok
}

// securityKeys are the ssl.* and sasl.* properties kbench applies.
var securityKeys = []string{
	"ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.type", "ssl.truststore.certificates",
	"ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.type", "ssl.keystore.certificate.chain",
	"ssl.keystore.key", "ssl.key.password", "ssl.endpoint.identification.algorithm", "ssl.protocol", "ssl.enabled.protocols",
	"sasl.mechanism", "sasl.jaas.config", "sasl.client.callback.handler.class", "sasl.login.callback.handler.class",
	"sasl.login.class", "sasl.oauthbearer.token.endpoint.url",
}

func isSecurityKey(k string) bool { return slices.Contains(securityKeys, k) }

// securityOpts are the kgo options for TLS and SASL.
func (c *Common) securityOpts() []kgo.Opt {
	var opts []kgo.Opt
	if c.security.tls != nil {
		opts = append(opts, kgo.DialTLSConfig(c.security.tls.Clone()))
	}
	if c.security.mechanism != nil {
		opts = append(opts, kgo.SASL(c.security.mechanism))
	}
	return opts
}
