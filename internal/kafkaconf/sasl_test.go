package kafkaconf

import (
	"strings"
	"testing"
)

func TestSASLProperties(t *testing.T) {
	base := []string{"bootstrap.servers=127.0.0.1:9092", "security.protocol=SASL_PLAINTEXT"}
	tests := []struct {
		name  string
		props []string
		mech  string
		err   string
		warn  string
	}{
		{"plain", []string{"sasl.mechanism=PLAIN", `sasl.jaas.config=` + plainModule + ` required username="u" password="hunter2";`}, "PLAIN", "", "sends the password unencrypted"},
		{"scram 512", []string{"sasl.mechanism=SCRAM-SHA-512", `sasl.jaas.config=` + scramModule + ` required username="u" password="hunter2";`}, "SCRAM-SHA-512", "", ""},
		{"scram 256", []string{"sasl.mechanism=SCRAM-SHA-256", `sasl.jaas.config=` + scramModule + ` required username="u" password="hunter2";`}, "SCRAM-SHA-256", "", ""},
		{"oauth token", []string{"sasl.mechanism=OAUTHBEARER", `sasl.jaas.config=` + oauthModule + ` required token="abc.def.ghi";`}, "OAUTHBEARER", "", ""},
		{"aws", []string{"sasl.mechanism=AWS_MSK_IAM", "sasl.jaas.config=" + iamModule + " required;",
			"sasl.client.callback.handler.class=software.amazon.msk.auth.iam.IAMClientCallbackHandler"}, "AWS_MSK_IAM", "", ""},
		{"gssapi default", nil, "", "sasl.mechanism=GSSAPI: Kerberos (GSSAPI, the Java default) is not supported", ""},
		{"no jaas", []string{"sasl.mechanism=SCRAM-SHA-512"}, "", "sasl.mechanism=SCRAM-SHA-512 needs the credentials in sasl.jaas.config", ""},
		{"wrong module", []string{"sasl.mechanism=SCRAM-SHA-512", `sasl.jaas.config=` + plainModule + ` required username="u" password="hunter2";`},
			"", "sasl.mechanism=SCRAM-SHA-512 needs the login module " + scramModule, ""},
		{"no password", []string{"sasl.mechanism=PLAIN", `sasl.jaas.config=` + plainModule + ` required username="u";`}, "", "the password option is missing", ""},
		{"token endpoint", []string{"sasl.mechanism=OAUTHBEARER", "sasl.oauthbearer.token.endpoint.url=https://idp/token",
			`sasl.jaas.config=` + oauthModule + ` required;`}, "", "kbench does not fetch OAuth tokens from an endpoint", ""},
		{"java class", []string{"sasl.mechanism=PLAIN", "sasl.login.callback.handler.class=com.example.Handler",
			`sasl.jaas.config=` + plainModule + ` required username="u" password="hunter2";`}, "", "kbench cannot load Java classes", ""},
		{"token file missing", []string{"sasl.mechanism=OAUTHBEARER", `sasl.jaas.config=` + oauthModule + ` required tokenFile="/no/such/token";`},
			"", "tokenFile: stat /no/such/token", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, warns, err := ParseProducer(pairs(t, append(append([]string{}, base...), tt.props...)...))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.security.mechanism == nil || p.security.mechanism.Name() != tt.mech {
				t.Fatalf("mechanism %v, want %s", p.security.mechanism, tt.mech)
			}
			if tt.warn != "" && !strings.Contains(joinWarnings(warns), tt.warn) {
				t.Errorf("warnings %q lack %q", joinWarnings(warns), tt.warn)
			}
			if s := p.Settings(); strings.Contains(strings.Join(values(s), " "), "hunter2") {
				t.Errorf("settings show the password: %v", s)
			}
		})
	}
}

func joinWarnings(ws []Warning) string {
	var s []string
	for _, w := range ws {
		s = append(s, w.String())
	}
	return strings.Join(s, "\n")
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
