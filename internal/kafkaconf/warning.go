package kafkaconf

import (
	"fmt"
	"strings"
)

// Warning is a property kbench accepted but does not apply as written: an
// unknown name, a Java-only setting, or a value franz-go cannot honor exactly.
type Warning struct{ Key, Source, Message string }

// String formats the warning for a terminal, e.g.
//
//	property "send.buffer.bytes" (--producer-props): known to the Java client but has no effect in kbench (...); ignored
func (w Warning) String() string {
	if w.Source == "" {
		return fmt.Sprintf("property %q: %s", w.Key, w.Message)
	}
	return fmt.Sprintf("property %q (%s): %s", w.Key, w.Source, w.Message)
}

// redacted replaces secret values in Settings, errors and warnings.
const redacted = "[redacted]"

// isSecret reports whether a property name (or a malformed item) may hold a
// secret: anything mentioning a password, secret, JAAS config or token, and
// the PEM keys (ssl.keystore.key, ...).
func isSecret(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"password", "secret", "jaas", "token"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return strings.HasSuffix(k, ".key")
}

// redact returns value, or "[redacted]" if key may hold a secret.
func redact(key, value string) string {
	if isSecret(key) {
		return redacted
	}
	return value
}
