module github.com/codali-dev/codali/examples

go 1.26.0

require github.com/codali-dev/codali/pkg v0.0.0-00010101000000-000000000000

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/codali-dev/codali/pkg => ../pkg
