package plan

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Secrets never leave kbench: the plan as run (plan.yaml, report.html)
// has secret values replaced and the user's comments left out (the OMB
// translation's own comments are redacted), and no error echoes a value
// given for a secret key or under one.

var (
	// secretInText finds a secret-looking name followed by '=' or ':' in
	// free text (a comment): group 1 is everything up to and including the
	// separator, the rest of the line is the value.
	secretInText = regexp.MustCompile(`(?i)^(.*?(?:password|secret|jaas|credentials|token|ssl\.key)[\w.\-]*["']?\s*[=:])(.*)$`)
	pemBegin     = regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)
	pemEnd       = regexp.MustCompile(`-----END [A-Z ]*PRIVATE KEY-----`)
)

// dropComments removes every comment of the tree.
func dropComments(n *yaml.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	for _, ch := range n.Content {
		dropComments(ch)
	}
}

// redactComments replaces secret values in every comment of the tree: a
// commented-out property (# sasl.jaas.config: ... password="x";) keeps
// its name and loses its value, and a private key's PEM lines go.
func redactComments(n *yaml.Node) {
	n.HeadComment = redactText(n.HeadComment)
	n.LineComment = redactText(n.LineComment)
	n.FootComment = redactText(n.FootComment)
	for _, ch := range n.Content {
		redactComments(ch)
	}
}

// redactText redacts the secrets in a comment, line by line.
func redactText(text string) string {
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	inKey := false
	for i, l := range lines {
		switch {
		case inKey:
			if loc := pemEnd.FindStringIndex(l); loc != nil {
				inKey = false
				lines[i] = commentPrefix(l) + l[loc[0]:]
			} else {
				lines[i] = commentPrefix(l) + redacted
			}
		case pemBegin.MatchString(l):
			inKey = !pemEnd.MatchString(l)
			if !inKey { // a whole key on one line
				lines[i] = commentPrefix(l) + redacted
			}
		default:
			if m := secretInText.FindStringSubmatch(l); m != nil && strings.TrimSpace(m[2]) != "" && strings.TrimSpace(m[2]) != redacted {
				lines[i] = m[1] + " " + redacted
			}
		}
	}
	return strings.Join(lines, "\n")
}

// commentPrefix is the '#' and indentation a comment line starts with.
func commentPrefix(l string) string {
	i := strings.IndexFunc(l, func(r rune) bool { return r != '#' && r != ' ' && r != '\t' })
	if i < 0 {
		return l
	}
	return l[:i]
}

const redacted = "[redacted]"

// SecretKey reports whether a property's value is a secret (a password, a
// JAAS configuration, a token, a private key), which kbench never writes
// out.
func SecretKey(name string) bool { return secretKey.MatchString(name) }

// shownProperty is a property's value as kbench shows it: redacted when
// its name is secret.
func shownProperty(key, value string) string {
	if secretKey.MatchString(key) {
		return redacted
	}
	return value
}

// propertyKey finds the key of a Java properties line: up to the first
// unescaped '=', ':' or white space. sep is where the value part starts.
var propertyKey = regexp.MustCompile(`^\s*((?:\\.|[^=:\s\\])+)\s*[=:\s]?`)

// redactPropertiesText redacts the values of secret keys in properties
// text as written (an OMB driver's commonConfig), continuation lines
// included.
func redactPropertiesText(text string) string {
	lines := strings.Split(text, "\n")
	cont := false // the line continues a secret value
	for i, l := range lines {
		if cont {
			cont = strings.HasSuffix(l, "\\")
			lines[i] = ""
			continue
		}
		t := strings.TrimSpace(l)
		if t == "" || t[0] == '#' || t[0] == '!' {
			if secretKey.MatchString(t) {
				lines[i] = redactText(l)
			}
			continue
		}
		if m := propertyKey.FindStringSubmatchIndex(l); m != nil && secretKey.MatchString(l[m[2]:m[3]]) {
			cont = strings.HasSuffix(l, "\\")
			lines[i] = l[:m[1]] + redacted
		}
	}
	return strings.Join(lines, "\n")
}

// secretPath reports whether a --set path names a secret key or a key
// under one: cluster.properties.sasl\.jaas\.config, and
// cluster.properties.sasl.jaas.config (unescaped dots) alike.
func secretPath(path string) bool {
	return secretKey.MatchString(strings.ReplaceAll(path, `\.`, "."))
}

// shownSet is a --set as errors show it: with its value redacted when its
// path is secret ("--set cluster.properties.sasl\.jaas\.config=[redacted]").
func shownSet(set string) string {
	path, value, ok := strings.Cut(set, "=")
	if !secretPath(path) {
		if ok {
			return path + "=" + redactURLUser(value) // a registry URL's user:password@
		}
		return set
	}
	if !ok {
		// No '=': where the value starts is unknown; keep the path up to
		// the secret name.
		loc := secretKey.FindStringIndex(strings.ReplaceAll(path, `\.`, "."))
		return strings.ReplaceAll(path, `\.`, ".")[:loc[1]] + "... " + redacted
	}
	return path + "=" + redacted
}
