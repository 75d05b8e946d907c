// Package cluster runs a real Apache Kafka cluster on 127.0.0.1: KRaft nodes
// that are broker and controller at once, started from jars that Maven
// fetches once into a cache directory, with the local Java.
//
// Learn [Start] and [Cluster] first: Start returns a running *Cluster, whose
// state is also saved as JSON so that another process can [Load] it and
// Stop it. [Fetch] resolves the jars alone (for the Java perf tools).
//
// A network-faults cluster ([WithNetworkFaults]) runs every connection
// between its processes through Toxiproxy's proxies, one per path, served
// by a process of its own ([ServeProxies]); [Cluster.Link] sets delay,
// loss, bandwidth limits and partitions on the paths between two
// [Endpoint]s (network.go explains how a proxy knows who connects).
//
// Brokers run detached, in their own session, so they outlive the process
// that started them unless [WithStopOnExit] is given. A broker is only ever
// signalled after checking that its PID still runs that node's config file.
package cluster
