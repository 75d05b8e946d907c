// Package faults is what a plan's faults are: their kinds, targets,
// parameters and the actors that carry them out. Learn Kind and Fault
// first. Package timeline (internal/faults/timeline) runs them while a
// scenario runs and measures what the cluster did; this package talks to
// no Kafka client, so that plans can read it.
//
// A fault kind (kill, pause, restart, ...) is a file of its own behind the
// Kind interface, registered by its action name in Kinds. A kind says what
// it does to its target brokers (its Effect: taken away, brought back),
// which is all the timeline measures from, and acts on the cluster through
// an Actor: on the local cluster the broker processes (LocalActor); on a
// remote cluster the commands the plan gives (CommandActor: kubectl delete
// pod ...), without a shell unless asked, keeping their output.
package faults
