package cluster

import (
	"fmt"
	"net"
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
