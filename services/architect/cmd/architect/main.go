// Command architect runs the Codali architect service (phase 2).
package main

import (
	"os"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/services/architect"
)

func main() {
	os.Exit(app.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, architect.Component(), nil))
}
