package compat

import "fmt"

// maxTopicName is Kafka's limit on a topic name's length (Topic.MAX_NAME_LENGTH).
const maxTopicName = 249

// CheckTopic applies Kafka's rule for topic names (Topic.validate): 1 to
// 249 characters from a-z, A-Z, 0-9, '.', '_' and '-', and not "." or "..".
// A broker rejects other names only when asked to create them, and a
// consumer would wait on them forever, so they are refused up front.
func CheckTopic(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("topic name is empty")
	case name == "." || name == "..":
		return fmt.Errorf("topic name %q is not allowed by Kafka", name)
	case len(name) > maxTopicName:
		return fmt.Errorf("topic name is %d characters long; Kafka allows at most %d", len(name), maxTopicName)
	}
	for _, c := range name {
		if !legalTopicChar(c) {
			return fmt.Errorf("topic name %q contains %q; Kafka allows only letters a-z and A-Z, digits, '.', '_' and '-'", name, c)
		}
	}
	return nil
}

func legalTopicChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}
