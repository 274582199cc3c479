package librarian_test

import (
	"github.com/codali-dev/codali/pkg/config"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/services/librarian"
)

func TestBundleCarriesRankedGoldenExamples(t *testing.T) {
	d := newDeps(t, `{}`)
	repo := copyHello(t)
	req := events.Requested{Request: "Make Greet greet the world when the name is empty", Repo: events.RepoRef{Path: repo}}
	project := config.DerivedProject(req.Repo)
	for _, g := range []pmstate.Golden{
		{RunID: "r1", Intent: "Add a --verbose flag", Patch: "+1 -0: modify main.go;"},
		{RunID: "r2", Intent: "Make Greet greet people", Plan: "return a greeting", Files: []string{"greet.go"}, Patch: "+1 -1: modify greet.go;"},
	} {
		if err := d.PM.AddGolden(testCtx(t), project, g, 0); err != nil {
			t.Fatal(err)
		}
	}
	h, err := librarian.New(testCtx(t), d)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := h(testCtx(t), requested(t, "gold", req))
	if err != nil || len(outs) != 1 {
		t.Fatalf("Handle: %v", err)
	}
	var cd events.ContextData
	if err := events.DecodeData(outs[0], &cd); err != nil {
		t.Fatal(err)
	}
	b, err := d.Artifacts.LoadBundle(testCtx(t), cd.Bundle, cd.BundleRef)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.GoldenExamples) != 1 || b.GoldenExamples[0].Intent != "Make Greet greet people" || b.GoldenExamples[0].Patch == "" {
		t.Fatalf("golden examples %+v: want the one like the request", b.GoldenExamples)
	}
}
