package kafkaconf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kbench/kbench/internal/infile"
	"github.com/kbench/kbench/internal/javaprops"
	"github.com/kbench/kbench/internal/userr"
)

// Prop is one property as the user wrote it. Source says where it came from,
// for messages: "--producer-props" or "client.properties:12".
type Prop struct{ Key, Value, Source string }

// ParsePairs parses "key=value" items, such as the arguments of
// --producer-props, splitting each on its first '=' because values like
// sasl.jaas.config contain '=' themselves. Every Prop gets source as its
// Source. Items without '=' or with an empty key are all reported in one
// error marked with userr.
func ParsePairs(pairs []string, source string) ([]Prop, error) {
	props := make([]Prop, 0, len(pairs))
	var errs []error
	for _, item := range pairs {
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		switch {
		case !ok:
			errs = append(errs, userr.Errorf("%s: %s: not a key=value pair (no '=')", source, showItem(item)))
		case k == "":
			errs = append(errs, userr.Errorf("%s: %s: empty property name before '='", source, showItem(item)))
		default:
			props = append(props, Prop{Key: k, Value: v, Source: source})
		}
	}
	if len(errs) > 0 {
		return nil, userr.New(errors.Join(errs...))
	}
	return props, nil
}

// showItem quotes a malformed item for a message, unless it looks like it
// holds a secret (a user who typed "sasl.jaas.config:..." must not see it
// echoed into CI logs).
func showItem(item string) string {
	if isSecret(item) {
		return "[redacted item]"
	}
	return strconv.Quote(item)
}

// ReadFile reads a Java .properties file: '#' and '!' comment lines, key=value,
// key:value and "key value" lines, leading whitespace, backslash line
// continuation, and the \t \n \r \f \uXXXX escapes. Each Prop's Source is
// "path:line" with the line the property starts on. The file is read as
// UTF-8 (the Java tools read ISO-8859-1; the two agree on ASCII). Errors are
// marked with userr.
func ReadFile(path string) ([]Prop, error) {
	data, err := infile.Read(path, MaxPropertiesFile, "a properties file")
	if err != nil {
		return nil, userr.New(fmt.Errorf("read properties file: %w", err))
	}
	ps, err := javaprops.Parse(string(data), path)
	if err != nil {
		return nil, err
	}
	out := make([]Prop, len(ps))
	for i, p := range ps {
		out[i] = Prop(p)
	}
	return out, nil
}
