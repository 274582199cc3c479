// Command builder runs the Codali builder service (phase 3).
package main

import (
	"os"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/services/builder"
)

func main() {
	os.Exit(app.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, builder.Component(), nil))
}
