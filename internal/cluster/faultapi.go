package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// faultAPI is the proxy process's HTTP API: Toxiproxy's, which Link and
// NetworkStatus call through Toxiproxy's client, with the relays doing
// what Toxiproxy's proxies would. Toxiproxy keeps the toxics (its
// ToxicCollection per path, its routes for them); the paths are listed in
// its collection but never started: enabling and disabling a path (Cut,
// Heal, reset) is answered here, by the path's relay. After every request
// that may change a toxic, each relay is told which of its directions have
// one (steer), so that their connections leave or rejoin the kernel's
// copy.
//
// Requests are served one at a time: a relay's state and Toxiproxy's
// Enabled field change only here.
type faultAPI struct {
	routes http.Handler // Toxiproxy's routes
	server *toxiproxy.ApiServer
	relays map[string]*relay

	mu sync.Mutex
}

// newFaultAPI starts a relay for every path, each listening, and returns
// the API over them.
func newFaultAPI(paths []Proxy, logger zerolog.Logger) (*faultAPI, error) {
	registerToxics()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), logger)
	a := &faultAPI{routes: server.Routes(), server: server, relays: map[string]*relay{}}
	for _, p := range paths {
		tp := toxiproxy.NewProxy(server, p.Name, p.Listen, p.Upstream)
		if err := server.Collection.Add(tp, false); err != nil { // listed, never started: the relay listens
			a.stop()
			return nil, fmt.Errorf("%s on %s: %w", p, p.Listen, err)
		}
		r := newRelay(server, tp, logger)
		a.relays[p.Name] = r
		if err := a.enable(tp, r); err != nil {
			a.stop()
			return nil, fmt.Errorf("%s on %s: %w", p, p.Listen, err)
		}
	}
	return a, nil
}

func (a *faultAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	write := r.Method != http.MethodGet && r.Method != http.MethodHead
	switch {
	case !write:
		a.routes.ServeHTTP(w, r)
	case len(parts) == 1 && parts[0] == "reset" && r.Method == http.MethodPost:
		a.reset(w, r)
	case len(parts) == 2 && parts[0] == "proxies" && (r.Method == http.MethodPost || r.Method == http.MethodPatch):
		a.update(w, r, parts[1])
	case len(parts) == 3 && parts[0] == "proxies" && parts[2] == "toxics" && r.Method == http.MethodPost:
		a.addToxic(w, r)
	case len(parts) >= 3 && parts[0] == "proxies" && parts[2] == "toxics":
		a.routes.ServeHTTP(w, r) // a toxic updated or removed
	default: // a proxy created, populated or deleted
		apiError(w, http.StatusMethodNotAllowed, "kbench's network proxies are the cluster's paths: they cannot be added or removed")
		return
	}
	if write {
		a.steer()
	}
}

// steer tells every relay which directions have a toxic.
func (a *faultAPI) steer() {
	for name, r := range a.relays {
		p, err := a.server.Collection.Get(name)
		if err != nil {
			continue
		}
		var on [stream.NumDirections]bool
		for _, t := range p.Toxics.GetToxicArray() {
			if w, ok := t.(*toxics.ToxicWrapper); ok {
				on[w.Direction] = true
			}
		}
		r.setToxic(on)
	}
}

// update enables or disables a path (Toxiproxy's client's Enable and
// Disable post the whole proxy) and answers with the proxy, as Toxiproxy
// does.
func (a *faultAPI) update(w http.ResponseWriter, r *http.Request, name string) {
	p, err := a.server.Collection.Get(name)
	rl := a.relays[name]
	if err != nil || rl == nil {
		apiError(w, http.StatusNotFound, "proxy not found")
		return
	}
	var in struct {
		Listen, Upstream string
		Enabled          *bool
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		apiError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return
	}
	if (in.Listen != "" && in.Listen != p.Listen) || (in.Upstream != "" && in.Upstream != p.Upstream) {
		apiError(w, http.StatusBadRequest, "kbench's network proxies cannot move: listen and upstream are the cluster's")
		return
	}
	switch {
	case in.Enabled == nil:
	case *in.Enabled:
		if err := a.enable(p, rl); err != nil {
			apiError(w, http.StatusInternalServerError, err.Error())
			return
		}
	default:
		rl.cut()
		p.Lock()
		p.Enabled = false
		p.Unlock()
	}
	a.show(w, r, name)
}

// enable makes the relay listen again and the path listed as enabled.
func (a *faultAPI) enable(p *toxiproxy.Proxy, rl *relay) error {
	if err := rl.start(); err != nil {
		return err
	}
	p.Lock()
	p.Enabled = true
	p.Unlock()
	return nil
}

// reset is Toxiproxy's: every path enabled, every toxic removed.
func (a *faultAPI) reset(w http.ResponseWriter, r *http.Request) {
	for name, rl := range a.relays {
		p, err := a.server.Collection.Get(name)
		if err != nil {
			continue
		}
		if err := a.enable(p, rl); err != nil {
			apiError(w, http.StatusInternalServerError, err.Error())
			return
		}
		p.Toxics.ResetToxics(r.Context())
	}
	w.WriteHeader(http.StatusNoContent)
}

// addToxic passes a new toxic to Toxiproxy, refusing the one kind the
// relays cannot carry: reset_peer needs the sockets themselves (Toxiproxy
// asserts its pipeline's ends are *net.TCPConn and would panic).
func (a *faultAPI) addToxic(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		apiError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return
	}
	var in struct{ Type string }
	_ = json.Unmarshal(body, &in)
	if in.Type == "reset_peer" {
		apiError(w, http.StatusBadRequest, "kbench's network proxies do not carry the reset_peer toxic")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	a.routes.ServeHTTP(w, r)
}

// show answers with the proxy as Toxiproxy lists it.
func (a *faultAPI) show(w http.ResponseWriter, r *http.Request, name string) {
	get, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "/proxies/"+url.PathEscape(name), nil)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	a.routes.ServeHTTP(w, get)
}

// stop closes every relay and its connections; connections still in a
// toxic pipeline get a few seconds to end.
func (a *faultAPI) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range a.relays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.stop(5 * time.Second)
		}()
	}
	wg.Wait()
}

// apiError answers as Toxiproxy's API does, which its client decodes.
func apiError(w http.ResponseWriter, status int, msg string) {
	raw, _ := json.Marshal(struct {
		Message string `json:"error"`
		Status  int    `json:"status"`
	}{msg, status})
	w.Header().Set("Content-Type", "application/json")
	http.Error(w, string(raw), status)
}
