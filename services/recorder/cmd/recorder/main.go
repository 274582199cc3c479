// Command recorder runs the Codali recorder service (RAO audit history).
package main

import (
	"os"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/services/recorder"
)

func main() {
	os.Exit(app.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, recorder.Component(), nil))
}
