package examples_test

import (
	"testing"

	"github.com/codali-dev/codali/examples"
)

func TestHelloScriptParses(t *testing.T) {
	s, err := examples.HelloScript()
	if err != nil {
		t.Fatal(err)
	}
	phases := map[string]int{}
	for _, r := range s.Responses {
		phases[r.Phase]++
	}
	if phases["architect"] != 2 || phases["builder"] != 6 {
		t.Fatalf("script answers per phase: %v", phases)
	}
}
