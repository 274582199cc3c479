// Command librarian runs the Codali librarian service (phase 1).
package main

import (
	"os"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/services/librarian"
)

func main() {
	os.Exit(app.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, librarian.Component(), nil))
}
