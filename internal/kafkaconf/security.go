package kafkaconf

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/aws"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// The SASL mechanisms kbench speaks.
var saslMechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "AWS_MSK_IAM"}

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
	byKey := map[string]Prop{}
	for _, p := range props {
		byKey[p.Key] = p
	}
	used := map[string]bool{}
	proto := c.SecurityProtocol
	c.security = security{}
	if strings.HasSuffix(proto, "SSL") {
		cfg, w, e := tlsConfig(byKey, used)
		warns, errs = append(warns, w...), append(errs, e...)
		c.security.tls = cfg
	}
	if strings.HasPrefix(proto, "SASL_") {
		m, w, e := saslMechanism(proto, byKey, used)
		warns, errs = append(warns, w...), append(errs, e...)
		c.security.mechanism = m
	}
	for _, p := range props {
		if used[p.Key] {
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

// securityKeys are the ssl.* and sasl.* properties kbench applies.
var securityKeys = []string{
	"ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.type", "ssl.truststore.certificates",
	"ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.type", "ssl.keystore.certificate.chain",
	"ssl.keystore.key", "ssl.key.password", "ssl.endpoint.identification.algorithm", "ssl.protocol", "ssl.enabled.protocols",
	"sasl.mechanism", "sasl.jaas.config", "sasl.client.callback.handler.class", "sasl.login.callback.handler.class",
	"sasl.login.class", "sasl.oauthbearer.token.endpoint.url",
}

func isSecurityKey(k string) bool { return slices.Contains(securityKeys, k) }

// tlsConfig builds the client's TLS configuration: the server is verified
// against the trust store (the system's roots without one), its host name
// too unless ssl.endpoint.identification.algorithm is empty (warned).
func tlsConfig(props map[string]Prop, used map[string]bool) (*tls.Config, []Warning, []error) {
	var warns []Warning
	var errs []error
	take := func(k string) (Prop, bool) {
		p, ok := props[k]
		if ok {
			used[k] = true
		}
		return p, ok
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if p, ok := take("ssl.enabled.protocols"); ok {
		v, err := tlsMinVersion(p.Value)
		if err != nil {
			errs = append(errs, propError(p, err.Error(), "TLSv1.2, TLSv1.3"))
		}
		cfg.MinVersion = v
	}
	if p, ok := take("ssl.protocol"); ok {
		if _, err := tlsMinVersion(p.Value); err != nil && p.Value != "TLS" {
			errs = append(errs, propError(p, err.Error(), "TLS, TLSv1.2, TLSv1.3"))
		}
	}

	// Trust.
	tsPass, _ := take("ssl.truststore.password")
	tsType, tsTypeGiven := take("ssl.truststore.type")
	if !tsTypeGiven {
		tsType = Prop{Key: "ssl.truststore.type", Value: "JKS", Source: "default"}
	}
	var roots []*x509.Certificate
	if p, ok := take("ssl.truststore.certificates"); ok {
		certs, err := pemCerts([]byte(p.Value))
		if err != nil {
			errs = append(errs, propError(p, err.Error(), ""))
		}
		roots = certs
	} else if p, ok := take("ssl.truststore.location"); ok {
		data, err := readStore(p.Value)
		if err == nil {
			typ := storeType(tsType.Value, tsTypeGiven, data)
			roots, err = loadTrust(typ, data, tsPass.Value)
		}
		if err != nil {
			errs = append(errs, propError(p, err.Error(), ""))
		}
	}
	if len(roots) > 0 {
		pool := x509.NewCertPool()
		for _, c := range roots {
			pool.AddCert(c)
		}
		cfg.RootCAs = pool
	}

	// The client's own certificate (mutual TLS).
	ksPass, _ := take("ssl.keystore.password")
	keyPass, _ := take("ssl.key.password")
	ksType, ksTypeGiven := take("ssl.keystore.type")
	if !ksTypeGiven {
		ksType = Prop{Key: "ssl.keystore.type", Value: "JKS", Source: "default"}
	}
	chainP, hasChain := take("ssl.keystore.certificate.chain")
	keyP, hasKey := take("ssl.keystore.key")
	switch {
	case hasChain != hasKey:
		p := chainP
		if hasKey {
			p = keyP
		}
		errs = append(errs, propError(p, "give ssl.keystore.certificate.chain and ssl.keystore.key together", ""))
	case hasChain:
		if keyPass.Value != "" {
			errs = append(errs, propError(keyP, "encrypted PEM keys (ssl.key.password) are not supported; give the key unencrypted", ""))
			break
		}
		cert, err := pemKeyPair([]byte(chainP.Value), []byte(keyP.Value))
		if err != nil {
			errs = append(errs, propError(keyP, err.Error(), ""))
		}
		cfg.Certificates = []tls.Certificate{cert}
	default:
		if p, ok := take("ssl.keystore.location"); ok {
			data, err := readStore(p.Value)
			var cert tls.Certificate
			if err == nil {
				cert, err = loadKey(storeType(ksType.Value, ksTypeGiven, data), data, ksPass.Value, keyPass.Value)
			}
			if err != nil {
				errs = append(errs, propError(p, err.Error(), ""))
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
	}

	// Host name verification.
	if p, ok := take("ssl.endpoint.identification.algorithm"); ok {
		switch strings.ToLower(strings.TrimSpace(p.Value)) {
		case "https":
		case "":
			warns = append(warns, Warning{Key: p.Key, Source: p.Source,
				Message: "is empty: the brokers' certificates are still checked against the trust store, but not their host names (anyone with a trusted certificate can pose as a broker); set https to check them"})
			verifyChainOnly(cfg)
		default:
			errs = append(errs, propError(p, "unknown algorithm", "https, or empty to skip host name checks"))
		}
	}
	return cfg, warns, errs
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

// saslMechanism builds the SASL mechanism from sasl.mechanism and
// sasl.jaas.config.
func saslMechanism(proto string, props map[string]Prop, used map[string]bool) (sasl.Mechanism, []Warning, []error) {
	var warns []Warning
	take := func(k string) (Prop, bool) {
		p, ok := props[k]
		if ok {
			used[k] = true
		}
		return p, ok
	}
	mp, ok := take("sasl.mechanism")
	if !ok {
		mp = Prop{Key: "sasl.mechanism", Value: "GSSAPI", Source: "default"}
	}
	mech := strings.TrimSpace(mp.Value)
	if !slices.Contains(saslMechanisms, mech) {
		why := "not a mechanism kbench speaks"
		if mech == "GSSAPI" {
			why = "Kerberos (GSSAPI, the Java default) is not supported; set sasl.mechanism"
		}
		return nil, nil, []error{propError(mp, why, strings.Join(saslMechanisms, ", "))}
	}
	if p, ok := take("sasl.oauthbearer.token.endpoint.url"); ok {
		return nil, nil, []error{propError(p, "kbench does not fetch OAuth tokens from an endpoint; give the token in sasl.jaas.config (token=\"...\") or a file kbench reads for every connection (tokenFile=\"/path\")", "")}
	}
	for _, k := range []string{"sasl.client.callback.handler.class", "sasl.login.callback.handler.class", "sasl.login.class"} {
		if p, ok := take(k); ok && !(mech == "AWS_MSK_IAM" && strings.HasPrefix(p.Value, "software.amazon.msk.auth.iam.")) {
			return nil, nil, []error{propError(p, "kbench cannot load Java classes; PLAIN, SCRAM, OAUTHBEARER (a token) and AWS_MSK_IAM are built in", "")}
		}
	}
	jp, hasJAAS := take("sasl.jaas.config")
	var entry jaasEntry
	if hasJAAS {
		var err error
		if entry, err = parseJAAS(jp.Value); err != nil {
			return nil, nil, []error{propError(jp, err.Error(), "")}
		}
	} else if mech != "AWS_MSK_IAM" {
		return nil, nil, []error{propError(Prop{Key: "sasl.jaas.config", Source: "not set"}, "sasl.mechanism="+mech+" needs the credentials in sasl.jaas.config, e.g. "+jaasExample(mech), "")}
	}
	want := map[string]string{"PLAIN": plainModule, "SCRAM-SHA-256": scramModule, "SCRAM-SHA-512": scramModule, "OAUTHBEARER": oauthModule, "AWS_MSK_IAM": iamModule}[mech]
	if hasJAAS && entry.Module != want {
		return nil, nil, []error{propError(jp, fmt.Sprintf("sasl.mechanism=%s needs the login module %s, not %s", mech, want, entry.Module), "")}
	}
	need := func(opts ...string) error {
		for _, o := range opts {
			if entry.Options[o] == "" {
				return propError(jp, fmt.Sprintf("the %s option is missing; e.g. %s", o, jaasExample(mech)), "")
			}
		}
		return nil
	}
	user, pass := entry.Options["username"], entry.Options["password"]
	switch mech {
	case "PLAIN":
		if err := need("username", "password"); err != nil {
			return nil, nil, []error{err}
		}
		if proto == "SASL_PLAINTEXT" {
			warns = append(warns, Warning{Key: mp.Key, Source: mp.Source, Message: "PLAIN over SASL_PLAINTEXT sends the password unencrypted; use SASL_SSL on a network you do not own"})
		}
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), warns, nil
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		if err := need("username", "password"); err != nil {
			return nil, nil, []error{err}
		}
		a := scram.Auth{User: user, Pass: pass, IsToken: entry.Options["tokenauth"] == "true"}
		if mech == "SCRAM-SHA-256" {
			return a.AsSha256Mechanism(), warns, nil
		}
		return a.AsSha512Mechanism(), warns, nil
	case "OAUTHBEARER":
		m, err := oauthMechanism(jp, entry)
		if err != nil {
			return nil, nil, []error{err}
		}
		return m, warns, nil
	}
	return awsMechanism(entry), warns, nil
}

func jaasExample(mech string) string {
	switch mech {
	case "PLAIN":
		return plainModule + ` required username="alice" password="...";`
	case "OAUTHBEARER":
		return oauthModule + ` required tokenFile="/run/secrets/kafka-token";`
	case "AWS_MSK_IAM":
		return iamModule + ` required;`
	}
	return scramModule + ` required username="alice" password="...";`
}

// oauthMechanism takes the token from the JAAS options: token (static),
// tokenFile (read for every new connection, so a refreshed file is
// picked up), or unsecuredLoginStringClaim_sub (an unsigned token, as
// Java's unsecured login makes for test clusters). Extensions are the
// options named extension_NAME.
func oauthMechanism(jp Prop, e jaasEntry) (sasl.Mechanism, error) {
	ext := map[string]string{}
	for k, v := range e.Options {
		if name, ok := strings.CutPrefix(k, "extension_"); ok {
			ext[name] = v
		}
		if name, ok := strings.CutPrefix(k, "unsecuredLoginExtension_"); ok {
			ext[name] = v
		}
	}
	token, file, sub := e.Options["token"], e.Options["tokenFile"], e.Options["unsecuredLoginStringClaim_sub"]
	switch {
	case token != "":
		return oauth.Auth{Token: token, Extensions: ext}.AsMechanism(), nil
	case file != "":
		if _, err := os.Stat(file); err != nil {
			return nil, propError(jp, fmt.Sprintf("tokenFile: %v", err), "")
		}
		return oauth.Oauth(func(context.Context) (oauth.Auth, error) {
			b, err := os.ReadFile(file)
			if err != nil {
				return oauth.Auth{}, fmt.Errorf("read the OAuth token file: %w", err)
			}
			return oauth.Auth{Token: strings.TrimSpace(string(b)), Extensions: ext}, nil
		}), nil
	case sub != "":
		return oauth.Oauth(func(context.Context) (oauth.Auth, error) {
			return oauth.Auth{Token: unsecuredJWT(sub), Extensions: ext}, nil
		}), nil
	}
	return nil, propError(jp, "the OAuth token is missing: give token=\"...\", tokenFile=\"/path\" or unsecuredLoginStringClaim_sub=\"name\" (test clusters)", "")
}

// unsecuredJWT is an unsigned token for sub, valid for an hour.
func unsecuredJWT(sub string) string {
	enc := base64.RawURLEncoding
	hdr, _ := json.Marshal(map[string]string{"alg": "none"})
	now := time.Now().Unix()
	claims, _ := json.Marshal(map[string]any{"sub": sub, "iat": now, "exp": now + 3600})
	return enc.EncodeToString(hdr) + "." + enc.EncodeToString(claims) + "."
}

// awsMechanism signs in with AWS IAM (MSK), taking credentials from the
// standard AWS chain (environment, shared files with awsProfileName or
// AWS_PROFILE, SSO, container and instance roles) when a connection
// authenticates, so that expiring credentials are refreshed.
func awsMechanism(e jaasEntry) sasl.Mechanism {
	profile := e.Options["awsProfileName"]
	return aws.ManagedStreamingIAM(func(ctx context.Context) (aws.Auth, error) {
		var opts []func(*awsconfig.LoadOptions) error
		if profile != "" {
			opts = append(opts, awsconfig.WithSharedConfigProfile(profile))
		}
		cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return aws.Auth{}, fmt.Errorf("AWS credentials: %w", err)
		}
		creds, err := cfg.Credentials.Retrieve(ctx)
		if err != nil {
			return aws.Auth{}, fmt.Errorf("AWS credentials (environment, shared config, or instance role): %w", err)
		}
		return aws.Auth{AccessKey: creds.AccessKeyID, SecretKey: creds.SecretAccessKey, SessionToken: creds.SessionToken, UserAgent: "kbench"}, nil
	})
}

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
