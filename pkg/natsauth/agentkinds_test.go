package natsauth_test

import (
	"slices"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natsauth"
)

// TestAgentsPublishTheAgentKinds: the run events the agents' identity
// may publish are events.AgentKinds, the kinds whose trace context the
// services treat as an agent's (config tracing.agentTraceContext).
func TestAgentsPublishTheAgentKinds(t *testing.T) {
	cli, err := natsauth.Lookup(natsauth.CLI)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range events.Kinds() {
		if got := slices.Contains(cli.Publish, k.FilterSubject()); got != k.FromAgents() {
			t.Errorf("%s: agents may publish it: %v; events.FromAgents: %v", k, got, k.FromAgents())
		}
	}
}
