package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/config"
)

func TestApprovalAndBudgetLimits(t *testing.T) {
	c, err := config.Parse([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.ApprovalTimeoutMS != 86400000 || c.Limits.MaxRunTokens != 0 || c.Limits.MaxRunCost != 0 {
		t.Fatalf("defaults: %+v", c.Limits)
	}
	if _, err := config.Parse([]byte(`{"limits":{"approvalTimeoutMs":2505600000}}`)); err != nil {
		t.Errorf("29 days: %v", err)
	}
	for name, tc := range map[string]struct{ json, want string }{
		"short timeout": {`{"limits":{"approvalTimeoutMs":10}}`, "limits.approvalTimeoutMs"},
		// Parks and deadline schedules are kept 30 days: a longer wait
		// would never end.
		"timeout past the park retention": {`{"limits":{"approvalTimeoutMs":2592000000}}`, "limits.approvalTimeoutMs"},
		"negative tokens":                 {`{"limits":{"maxRunTokens":-1}}`, "limits.maxRunTokens"},
		"negative cost":                   {`{"limits":{"maxRunCost":-0.5}}`, "limits.maxRunCost"},
		"negative price":                  {`{"providers":{"p":{"type":"scripted","pricing":{"m":{"inputPerMTok":-1}}}}}`, "pricing of \"m\""},
	} {
		_, err := config.Parse([]byte(tc.json))
		if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", name, err, tc.want)
		}
	}
}
