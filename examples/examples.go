// Package examples bundles Codali's example: a tiny Go repository
// (examples/hello, its own module) and the scripted model answers that take
// it through the whole pipeline — the first build fails its `go test`
// verification, the critic sends it back to the architect, and the second
// attempt passes.
package examples

import (
	_ "embed"

	"github.com/codali-dev/codali/pkg/llm"
)

//go:embed hello.script.json
var helloScript []byte

// HelloRequest is the request the demo submits for the hello repository.
const HelloRequest = `Make Greet return "Hello, <name>!", and "Hello, world!" when the name is empty.`

// HelloScript returns the scripted model answers for the hello example.
func HelloScript() (*llm.Script, error) { return llm.ParseScript(helloScript) }

// HelloScriptJSON returns the script file's bytes.
func HelloScriptJSON() []byte { return append([]byte(nil), helloScript...) }
