// Package userr marks errors that are the user's to fix (bad flags, bad
// property values, unreadable input files), so that cmd/kbench can print them
// without a stack of context and exit with code 2, the usage exit code of the
// Apache Kafka tools and of most Unix commands.
package userr

import (
	"errors"
	"fmt"
)

// Error is an error caused by the user's input. Its message says where the
// bad input is (flag, property, file:line) and how to fix it.
type Error struct {
	Err error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// New marks err as the user's to fix. It returns nil for a nil err.
func New(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err}
}

// Errorf formats a message and marks it as the user's to fix.
func Errorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...)}
}

// Is reports whether err, or any error it wraps, was marked by New or Errorf.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
