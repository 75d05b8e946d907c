package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// proxyConfig is the proxy process's config file (Network.Config).
type proxyConfig struct {
	API     string  `json:"api"`
	Proxies []Proxy `json:"proxies"`
}

// ServeProxies runs a network-faults cluster's proxies, as described by its
// config file (proxies.json in the cluster's folder), until ctx is done:
// a relay per path (relay.go: through the kernel while the path has no
// toxic, through Toxiproxy's toxic pipeline while it has one), and
// Toxiproxy's HTTP API on the address the config gives, through which Link
// sets and clears faults from any process (faultAPI: the toxics are
// Toxiproxy's own; cutting and healing a path are the relay's). It is the
// body of kbench's `cluster proxies` command, which Start runs in a
// process of its own. Warnings and errors (an upstream that refuses: its
// broker is down) are logged to log.
func ServeProxies(ctx context.Context, config string, log io.Writer) error {
	raw, err := os.ReadFile(config)
	if err != nil {
		return fmt.Errorf("network proxies: %w", err)
	}
	var cfg proxyConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return fmt.Errorf("network proxies: parse %s: %w", config, err)
	}
	logger := zerolog.New(log).Level(zerolog.WarnLevel).With().Timestamp().Logger()
	api, err := newFaultAPI(cfg.Proxies, logger)
	if err != nil {
		return fmt.Errorf("network proxies: %w", err)
	}
	defer api.stop()
	l, err := net.Listen("tcp", cfg.API)
	if err != nil {
		return fmt.Errorf("network proxies: API: %w", err)
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	fmt.Fprintf(log, "%s network proxies: %d proxies, API on %s\n", time.Now().Format(time.RFC3339), len(cfg.Proxies), cfg.API)
	select {
	case err := <-served:
		return fmt.Errorf("network proxies: API: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("network proxies: API: %w", err)
	}
	return nil
}

// registerToxics adds kbench's own toxics to Toxiproxy's registry (a map
// in the library; registering twice replaces).
func registerToxics() { toxics.Register(lossToxicType, new(lossToxic)) }
