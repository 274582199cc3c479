module github.com/codali-dev/codali/services/architect

go 1.26.0

require github.com/codali-dev/codali/pkg v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/pkg => ../../pkg

require github.com/codali-dev/codali/examples v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/examples => ../../examples
