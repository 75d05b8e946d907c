package brokermetrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestScraper: an endpoint is scraped at Start and at Stop with its basic
// auth; one that refuses is said in the entry's error, with no figures.
func TestScraper(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	texts := []string{exampleConfigStart, exampleConfigEnd}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "kb" || p != "s3cret" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		i := min(int(n.Add(1))-1, 1)
		w.Write([]byte(texts[i]))
	}))
	defer srv.Close()
	s := Start(t.Context(), []Target{
		{Endpoint: "good", URL: srv.URL, Username: "kb", Password: "s3cret"},
		{Endpoint: "refused", URL: srv.URL},
	}, time.Hour)
	got := s.Stop()
	if len(got) != 2 {
		t.Fatalf("%d entries, want 2", len(got))
	}
	good, bad := got[0], got[1]
	if good.Endpoint != "good" || good.Kafka.Scrapes != 2 || good.Kafka.Error != "" || good.Kafka.BytesIn == nil || *good.Kafka.BytesIn != 300 {
		t.Errorf("good endpoint: %+v; want 2 scrapes, 300 bytes in", good.Kafka)
	}
	if bad.Kafka.Scrapes != 0 || !strings.Contains(bad.Kafka.Error, "scrape endpoint refused: 401 Unauthorized") || bad.Kafka.BytesIn != nil {
		t.Errorf("refused endpoint: %+v; want its 401 and no figures", bad.Kafka)
	}
}
