package plan

import (
	"strings"
	"testing"
)

// secretPlan has secrets in a property, in comments of every kind (head,
// line, foot; a commented-out JAAS value over several lines; a private key)
// and nothing secret in the other comments, which must survive.
const secretPlan = `# the partition study, against the staging cluster
name: s
cluster:
  properties:
    client.id: kbench # who we are
    sasl.jaas.config: org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="FILE-SECRET";
    # sasl.jaas.config: org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="COMMENT-SECRET-1";
    # ssl.truststore.password=COMMENT-SECRET-2
    acks: all # token: COMMENT-SECRET-3
    # sasl.jaas.config: >-
    #   org.apache.kafka.common.security.scram.ScramLoginModule required
    #   username="alice"
    #   password="COMMENT-SECRET-4";
    # ssl.keystore.key: |
    #   -----BEGIN PRIVATE KEY-----
    #   COMMENT-SECRET-5
    #   -----END PRIVATE KEY-----
workloads:
  - {name: p, type: produce, topic: t, records: 5, message: {size: 1}}
# secret values are [redacted] in every file kbench writes
# old: aws_secret_access_key = COMMENT-SECRET-6
`

// TestRedactedComments: regression: a credential in a comment of the plan
// (a commented-out sasl.jaas.config) was copied into plan.yaml and
// report.html; then, with comments redacted by keyword, one written as
// prose ("# the truststore password is LEAK8") still was. The plan as run
// keeps no comment of the user's.
func TestRedactedComments(t *testing.T) {
	t.Parallel()
	prose := secretPlan + "# pw: LEAK2\n# passwd=LEAK3\n# secret LEAK5\n# the truststore password is LEAK8\n# admin login: alice / s3cret\n"
	p, err := testParse("plan.yaml", []byte(prose), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := string(p.Redacted())
	for _, s := range []string{"FILE-SECRET", "COMMENT-SECRET", "LEAK", "s3cret", "#"} {
		if strings.Contains(out, s) {
			t.Errorf("the plan as run holds %s:\n%s", s, out)
		}
	}
	for _, keep := range []string{"client.id: kbench", "sasl.jaas.config: '[redacted]'", "acks: all"} {
		if !strings.Contains(out, keep) {
			t.Errorf("the plan as run lacks %q:\n%s", keep, out)
		}
	}
}

// TestRedactText: the OMB translation's own comments, kept in its plan,
// still go through the keyword redaction.
func TestRedactText(t *testing.T) {
	got := redactText("# ssl.truststore.password=X1\n# who we are\n# -----BEGIN PRIVATE KEY-----\n# X2\n# -----END PRIVATE KEY-----")
	if strings.Contains(got, "X1") || strings.Contains(got, "X2") || !strings.Contains(got, "# who we are") {
		t.Errorf("redactText:\n%s", got)
	}
}

// TestSetErrorsHideSecrets: regression: --set errors echoed
// sasl.jaas.config with its password (`is "...password=\"...\";", not a
// list`), and a --set with unescaped dots in a secret key echoed the value
// without saying to write \.
func TestSetErrorsHideSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, set, want string
	}{
		{"not a list", `cluster.properties.sasl\.jaas\.config[0]=SET-SECRET`, "cluster.properties.sasl.jaas.config is a single value, not a list"},
		{"not a mapping", `cluster.properties.sasl\.jaas\.config.x=SET-SECRET`, "cluster.properties.sasl.jaas.config is a single value, not a mapping with fields"},
		{"unescaped dots", `cluster.properties.sasl.jaas.config=x password="SET-SECRET";`,
			`--set cluster.properties.sasl.jaas.config=[redacted]: cluster.properties.sasl: is a mapping: a property name's dots are written \. in --set, as in --set 'cluster.properties.sasl\.jaas\.config=...'`},
		{"unescaped dots, not secret", `workloads[0].properties.linger.ms=5`,
			`--set workloads[0].properties.linger.ms=5: workloads[0].properties.linger: is a mapping: a property name's dots are written \. in --set, as in --set 'workloads[0].properties.linger\.ms=...'`},
		{"a list", `cluster.properties.ssl\.key\.password={a,SET-SECRET}`, `--set cluster.properties.ssl\.key\.password=[redacted]: cluster.properties.ssl.key.password: is a list; write a single value`},
		{"no =", `cluster.properties.sasl\.jaas\.configSET-SECRET`, "no '='"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := testParse("plan.yaml", []byte(secretPlan), []string{tt.set})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "SECRET") {
				t.Errorf("the error shows a secret:\n%s", msg)
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error:\n%s\nwant it to contain:\n%s", msg, tt.want)
			}
		})
	}
}
