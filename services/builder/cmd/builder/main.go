// Command builder runs the Codali builder service (phase 3).
package main

import (
	"os"

	"github.com/codali-dev/codali/examples"
	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/services/builder"
)

func main() {
	// Without a configured model, the scripted provider answers with the
	// bundled example, as under codali up.
	script, err := examples.HelloScript()
	if err != nil {
		panic(err) // the bundled script is validated by the examples tests
	}
	os.Exit(app.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, builder.Component(), script))
}
