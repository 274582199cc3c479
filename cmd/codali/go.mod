module github.com/codali-dev/codali/cmd/codali

go 1.26.0

require github.com/codali-dev/codali/pkg v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/pkg => ../../pkg

require github.com/codali-dev/codali/examples v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/examples => ../../examples

require github.com/codali-dev/codali/services/librarian v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/services/librarian => ../../services/librarian

require github.com/codali-dev/codali/services/architect v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/services/architect => ../../services/architect

require github.com/codali-dev/codali/services/builder v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/services/builder => ../../services/builder

require github.com/codali-dev/codali/services/critic v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/services/critic => ../../services/critic

require github.com/codali-dev/codali/services/recorder v0.0.0-00010101000000-000000000000

replace github.com/codali-dev/codali/services/recorder => ../../services/recorder
