package builder

import (
	"context"
	"time"

	"github.com/codali-dev/codali/pkg/sandbox"
	"github.com/codali-dev/codali/pkg/workspace"
)

// commandRunner runs a command in a workspace through the sandbox
// (app.Deps.RunCommand).
type commandRunner func(ctx context.Context, ws *workspace.Workspace, argv []string, timeout time.Duration, outputLimit int) (sandbox.Result, error)
