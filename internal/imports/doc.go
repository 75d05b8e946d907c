// Package imports holds no code: its tests hold the repo's import rules
// (docs/notes.md, "Import rules"; STYLE.md, "Dependencies point one way").
//
// TestImportRules lists every package with `go list -json ./...` and
// checks the rules over that graph. It is a ratchet: the edges that break
// a rule today are listed by name in known (imports_test.go), the test
// fails on any other, and it fails on a known edge that no longer occurs,
// so the list only shrinks. The checker is a pure function over a graph
// (check, in rules_test.go), so TestCheck can feed it a synthetic graph
// that breaks each rule and see it caught.
package imports
