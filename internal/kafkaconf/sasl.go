package kafkaconf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// The SASL mechanisms kbench speaks.
var saslMechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "AWS_MSK_IAM"}

// saslMechanism builds the SASL mechanism from sasl.mechanism and
// sasl.jaas.config. The first problem ends it: the properties after it
// are not looked at (nor reported as used).
func saslMechanism(proto string, props securityProps) (sasl.Mechanism, []Warning, []error) {
	mp, ok := props.take("sasl.mechanism")
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
	if err := saslUnsupported(props, mech); err != nil {
		return nil, nil, []error{err}
	}
	jp, entry, err := saslLogin(props, mech)
	if err != nil {
		return nil, nil, []error{err}
	}
	m, warns, err := saslBuild(proto, mech, mp, jp, entry)
	if err != nil {
		return nil, nil, []error{err}
	}
	return m, warns, nil
}

// saslUnsupported refuses what asks for a token endpoint or Java classes
// (AWS's own IAM classes excepted: kbench has that built in).
func saslUnsupported(props securityProps, mech string) error {
	if p, ok := props.take("sasl.oauthbearer.token.endpoint.url"); ok {
		return propError(p, "kbench does not fetch OAuth tokens from an endpoint; give the token in sasl.jaas.config (token=\"...\") or a file kbench reads for every connection (tokenFile=\"/path\")", "")
	}
	for _, k := range []string{"sasl.client.callback.handler.class", "sasl.login.callback.handler.class", "sasl.login.class"} {
		if p, ok := props.take(k); ok && !(mech == "AWS_MSK_IAM" && strings.HasPrefix(p.Value, "software.amazon.msk.auth.iam.")) {
			return propError(p, "kbench cannot load Java classes; PLAIN, SCRAM, OAUTHBEARER (a token) and AWS_MSK_IAM are built in", "")
		}
	}
	return nil
}

// saslLogin reads sasl.jaas.config, which every mechanism but AWS_MSK_IAM
// needs, and checks that its login module is the mechanism's.
func saslLogin(props securityProps, mech string) (Prop, jaasEntry, error) {
	jp, hasJAAS := props.take("sasl.jaas.config")
	var entry jaasEntry
	if !hasJAAS {
		if mech != "AWS_MSK_IAM" {
			return jp, entry, propError(Prop{Key: "sasl.jaas.config", Source: "not set"}, "sasl.mechanism="+mech+" needs the credentials in sasl.jaas.config, e.g. "+jaasExample(mech), "")
		}
		return jp, entry, nil
	}
	entry, err := parseJAAS(jp.Value)
	if err != nil {
		return jp, entry, propError(jp, err.Error(), "")
	}
	want := map[string]string{"PLAIN": plainModule, "SCRAM-SHA-256": scramModule, "SCRAM-SHA-512": scramModule, "OAUTHBEARER": oauthModule, "AWS_MSK_IAM": iamModule}[mech]
	if entry.Module != want {
		return jp, entry, propError(jp, fmt.Sprintf("sasl.mechanism=%s needs the login module %s, not %s", mech, want, entry.Module), "")
	}
	return jp, entry, nil
}

// saslBuild makes mechanism mech from its login options (jp, entry).
func saslBuild(proto, mech string, mp, jp Prop, entry jaasEntry) (sasl.Mechanism, []Warning, error) {
	var warns []Warning
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
			return nil, nil, err
		}
		if proto == "SASL_PLAINTEXT" {
			warns = append(warns, Warning{Key: mp.Key, Source: mp.Source, Message: "PLAIN over SASL_PLAINTEXT sends the password unencrypted; use SASL_SSL on a network you do not own"})
		}
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), warns, nil
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		if err := need("username", "password"); err != nil {
			return nil, nil, err
		}
		a := scram.Auth{User: user, Pass: pass, IsToken: entry.Options["tokenauth"] == "true"}
		if mech == "SCRAM-SHA-256" {
			return a.AsSha256Mechanism(), warns, nil
		}
		return a.AsSha512Mechanism(), warns, nil
	case "OAUTHBEARER":
		m, err := oauthMechanism(jp, entry)
		if err != nil {
			return nil, nil, err
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
