package cluster

import (
	"fmt"
	"net"
	"strconv"
)

// freePorts returns n distinct free ports on 127.0.0.1. They are free when
// checked, not reserved: Start retries with new ports if a broker then
// loses one to another process.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		// Keep each listener open until all are picked, so ports differ.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Fixed ports (WithPortBase): broker N's client port is base+N-1, its
// controller port base+10+N-1 and, on a secured or network-faults cluster,
// its internal listener base+20+N-1; MaxBrokers (9) fits in each block of
// 10. A network-faults cluster's brokers have their own client listener at
// base+30+N-1 (base+N-1 is their client proxy) and the proxies' API is at
// base+9.
const (
	portBlock           = 10
	portBlocks          = 3
	minPortBase         = 1024
	maxPortBase         = 65535 - portBlocks*portBlock + 1
	portsPerBase        = portBlocks * portBlock
	networkPortsPerBase = (portBlocks + 1) * portBlock
	maxNetworkPortBase  = 65535 - networkPortsPerBase + 1
	networkAPISlot      = 9
	registrySlot        = 19 // the schema registry: after the controllers' block
)

// fixedPorts lays out per ports for each of n brokers from base, in
// freePorts' order (broker by broker), checking that each is free.
func fixedPorts(base, n, per int) ([]int, error) {
	roles := []string{"client", "controller", "internal", "own client"}
	ports := make([]int, 0, per*n)
	for i := range n {
		for k := range per {
			port := base + k*portBlock + i
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				return nil, &OptionError{"port-base", strconv.Itoa(base),
					fmt.Sprintf("port %d (broker %d's %s port) is in use; pick another base, or leave --port-base out to use free ports", port, i+1, roles[k])}
			}
			l.Close()
			ports = append(ports, port)
		}
	}
	return ports, nil
}

// fixedPort checks that one fixed port is free.
func fixedPort(base, port int, role string) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return &OptionError{"port-base", strconv.Itoa(base),
			fmt.Sprintf("port %d (%s) is in use; pick another base, or leave --port-base out to use free ports", port, role)}
	}
	return l.Close()
}
