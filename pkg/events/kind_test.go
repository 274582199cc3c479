package events

import (
	"slices"
	"testing"
)

// TestFromAgents: agents publish requests and decisions, the services
// every other kind.
func TestFromAgents(t *testing.T) {
	for _, k := range Kinds() {
		want := k == KindRequested || k == KindApprovalDecided
		if k.FromAgents() != want || slices.Contains(AgentKinds(), k) != want {
			t.Errorf("%s: FromAgents %v, want %v", k, k.FromAgents(), want)
		}
	}
}
