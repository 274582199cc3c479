package redact

import "testing"

// TestMetricLabels: a Prometheus or OpenMetrics label named for a secret
// (token) has its value redacted, in exposition lines, log lines and
// PromQL matchers (=, !=, =~, !~); the metric's name, the other labels,
// the value and the timestamp are kept.
func TestMetricLabels(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{`api_requests_total{token="abc123secret"} 5`, `api_requests_total{token="[REDACTED:credential]"} 5`},
		{`api_requests_total{method="GET",token="abc123secret",code="200"} 5 1700000000000`, `api_requests_total{method="GET",token="[REDACTED:credential]",code="200"} 5 1700000000000`},
		{`api_requests_total{token="ab\"c",path="/x"} 5`, `api_requests_total{token="[REDACTED:credential]",path="/x"} 5`},
		{"# HELP api_requests_total Requests by token.\n# TYPE api_requests_total counter\napi_requests_total{token=\"abc123secret\"} 5\n# EOF\n",
			"# HELP api_requests_total Requests by token.\n# TYPE api_requests_total counter\napi_requests_total{token=\"[REDACTED:credential]\"} 5\n# EOF\n"},
		{`level=warn msg="scrape failed" series={token="abc123secret", job="api"}`, `level=warn msg="scrape failed" series={token="[REDACTED:credential]", job="api"}`},
		{`sum(rate(api_requests_total{token=~"abc123secret"}[5m]))`, `sum(rate(api_requests_total{token=~"[REDACTED:credential]"}[5m]))`},
		{`api_requests_total{token!="abc123secret",job="api"}`, `api_requests_total{token!="[REDACTED:credential]",job="api"}`},
		{`api_requests_total{token!~'abc123.*'}`, `api_requests_total{token!~'[REDACTED:credential]'}`},
		{`api_requests_total{token = "abc123secret"} 5`, `api_requests_total{token = "[REDACTED:credential]"} 5`},
		{`password == "hunter2"`, `password == "hunter2"`},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := r.String(c.want); again != c.want {
			t.Errorf("String(%q) changed the redacted text: %q", c.want, again)
		}
	}
	for _, in := range []string{
		`sum by (token) (rate(api_requests_total[5m]))`,
		`api_requests_total{token=""} 5`,
		`token_requests_total{job="api"} 5`,
		`if token != "" {`,
		`if token !== "" {`,
		`if apiKey != "test-key" {`,
		`assert token =~ "^[a-z]+$"`,
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}
