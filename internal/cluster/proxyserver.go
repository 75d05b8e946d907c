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

	toxiproxy "github.com/Shopify/toxiproxy/v2"
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
// Toxiproxy's proxies, and Toxiproxy's HTTP API on the address the config
// gives, through which Link sets and clears faults from any process. It is
// the body of kbench's `cluster proxies` command, which Start runs in a
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
	registerToxics()
	logger := zerolog.New(log).Level(zerolog.WarnLevel).With().Timestamp().Logger()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), logger)
	defer server.Collection.Clear() //nolint:errcheck // stops every proxy
	for _, p := range cfg.Proxies {
		if err := server.Collection.Add(toxiproxy.NewProxy(server, p.Name, p.Listen, p.Upstream), true); err != nil {
			return fmt.Errorf("network proxies: %s on %s: %w", p, p.Listen, err)
		}
	}
	l, err := net.Listen("tcp", cfg.API)
	if err != nil {
		return fmt.Errorf("network proxies: API: %w", err)
	}
	srv := &http.Server{Handler: server.Routes(), ReadHeaderTimeout: 10 * time.Second}
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
