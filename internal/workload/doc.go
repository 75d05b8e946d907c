// Package workload is what a scenario runs: its kinds, one per file
// (kind_*.go), each a Spec that builds an Engine the runner drives
// (engine.go), the capabilities a study asks a spec for instead of its
// kind (capabilities.go), and what composes the engine families (the
// end-to-end probe, e2e.go; the round trip, roundtrip_*.go).
//
// The engines themselves are below, by family: produce (producers),
// consume (a consumer group's members or assigned partitions), share (a
// share group's members), and engine, the pieces every family is built
// from. Engines return measurements, never result documents.
package workload
