package hosted

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/avenir-mcp/avenir/tools"
)

// metrics are what /metrics shows, in a registry of the instance's own (two instances in
// one test process do not collide). No label ever holds a person, an id, a path or an amount:
// tools, statuses, HTTP methods and status classes are small fixed sets.
type metrics struct {
	reg          *prometheus.Registry
	calls        *prometheus.CounterVec   // by tool and status
	callSeconds  *prometheus.HistogramVec // by tool
	writes       *prometheus.CounterVec   // write tools' calls by tool and outcome
	ynabRequests *prometheus.CounterVec   // by endpoint (api, oauth), method and status class
	ynabSeconds  *prometheus.HistogramVec // the same labels
	people       prometheus.Gauge         // people whose server this instance holds

	writeTools map[string]bool // the tools that write, whose calls count in writes too
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "avenir_tool_calls_total",
			Help: "MCP tool calls by tool and status (a write's status: applied, declined, confirmation_required, confirmation_pending; input_required, error or ok otherwise).",
		}, []string{"tool", "status"}),
		callSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "avenir_tool_call_duration_seconds",
			Help:    "How long MCP tool calls took, by tool.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"tool"}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "avenir_writes_total",
			Help: "Calls of the tools that write, by tool and outcome (applied, declined, confirmation_required, confirmation_pending, input_required, error).",
		}, []string{"tool", "outcome"}),
		ynabRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "avenir_ynab_requests_total",
			Help: "Requests to YNAB, by endpoint (api or oauth), method and status class (2xx, 3xx, 4xx, 429, 5xx, or error when no answer came).",
		}, []string{"endpoint", "method", "status"}),
		ynabSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "avenir_ynab_request_duration_seconds",
			Help:    "How long requests to YNAB took, by endpoint, method and status class.",
			Buckets: []float64{.025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"endpoint", "method", "status"}),
		people: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "avenir_people_cached",
			Help: "People whose MCP server this instance holds in memory.",
		}),
	}
	m.reg.MustRegister(m.calls, m.callSeconds, m.writes, m.ynabRequests, m.ynabSeconds, m.people,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// onCall is tools.Deps.OnCall.
func (m *metrics) onCall(tool, status string, _ int, took time.Duration) {
	m.calls.WithLabelValues(tool, status).Inc()
	m.callSeconds.WithLabelValues(tool).Observe(took.Seconds())
	if m.writeTools[tool] {
		m.writes.WithLabelValues(tool, status).Inc()
	}
}

// instrument counts and times every request to YNAB that base carries.
func (m *metrics) instrument(base http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		start := time.Now()
		resp, err := base.RoundTrip(req)
		status := "error"
		if err == nil {
			status = statusClass(resp.StatusCode)
		}
		labels := []string{ynabEndpoint(req), methodLabel(req.Method), status}
		m.ynabRequests.WithLabelValues(labels...).Inc()
		m.ynabSeconds.WithLabelValues(labels...).Observe(time.Since(start).Seconds())
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// ynabEndpoint: "oauth" for YNAB's token endpoint (refreshes and sign-ins), "api" for the rest.
func ynabEndpoint(req *http.Request) string {
	if strings.Contains(req.URL.Path, "/oauth/") {
		return "oauth"
	}
	return "api"
}

func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return m
	}
	return "other"
}

// statusClass keeps 429 apart: it is YNAB's rate limit (or the person's budget, which never
// reaches here), the one 4xx an operator watches for.
func statusClass(code int) string {
	switch {
	case code == http.StatusTooManyRequests:
		return "429"
	case code >= 200 && code < 600:
		return string(rune('0'+code/100)) + "xx"
	}
	return "other"
}

// writeToolNames are the tools a write-mode server offers that are not read-only, asked of a
// real server over an in-memory connection so that the set follows the tools.
func writeToolNames(version string) map[string]bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	names := map[string]bool{}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := tools.NewServer(tools.Deps{Version: version}).Connect(ctx, st, nil)
	if err != nil {
		return names
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "avenir-hosted", Version: version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return names
	}
	defer cs.Close()
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			break
		}
		if t.Annotations == nil || !t.Annotations.ReadOnlyHint {
			names[t.Name] = true
		}
	}
	return names
}
