// Command critic runs the Codali critic service (phase 4).
package main

import (
	"os"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/services/critic"
)

func main() {
	os.Exit(app.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, critic.Component(), nil))
}
