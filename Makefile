# Codali — build, test, demo. Every tool this file needs is installed by it
# (Go modules only); nothing has to be installed by hand besides Go and git.

GO        ?= go
BIN       := bin
TOOLS     := $(BIN)/tools
STATICCHECK_VERSION   := v0.8.2
GOLANGCI_LINT_VERSION := v2.15.0

# Every module's packages (the workspace root is not a module itself).
MODULES  := pkg examples cmd/codali services/librarian services/architect services/builder services/critic services/recorder
PACKAGES := $(addprefix ./,$(addsuffix /...,$(MODULES)))
SERVICES := librarian architect builder critic recorder

.PHONY: all build test unit fuzz chaos race-free demo run lint fmt vet bench bench-short tools clean help sandbox-deps

all: build

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build codali and the five service binaries into bin/
	@mkdir -p $(BIN)
	$(GO) build -trimpath -o $(BIN)/codali ./cmd/codali
	@for s in $(SERVICES); do echo "$(GO) build -o $(BIN)/$$s ./services/$$s/cmd/$$s"; $(GO) build -trimpath -o $(BIN)/$$s ./services/$$s/cmd/$$s || exit 1; done

# Fuzz targets run briefly by `make fuzz` (package:target:executions), one
# after the other; each also runs its checked-in corpus (testdata/fuzz) as
# a plain test. A target's budget is a count of executions (a few seconds
# each on a 2-core machine), not a duration: with a duration, Go's fuzzing
# coordinator before Go 1.27 (go.dev/issue/75804) can fail a target with a
# bare "context deadline exceeded" at the deadline on a loaded machine,
# having found nothing. FUZZTIME (a duration such as 30s, or a count such
# as 500000x) runs every target for that instead.
FUZZ_TARGETS := pkg/events:FuzzDecode:60000 pkg/codex:FuzzDecode:30000 pkg/cognition:FuzzParseOutputIR:90000 \
	pkg/llm:FuzzExtractJSON:14000 pkg/policy:FuzzGitSpellings:25000 pkg/policy:FuzzEvaluateCommand:8000 \
	pkg/redact:FuzzRedact:5000 pkg/redact:FuzzJSON:12000 pkg/changegate:FuzzFromDiff:40000 \
	pkg/workspace:FuzzApplyText:300
FUZZTIME ?=

test: sandbox-deps unit fuzz ## install bubblewrap if missing, run every test with the race detector, then a short fuzz run

unit: sandbox-deps ## run every unit test with the race detector
	$(GO) test -race -count=1 -timeout 15m $(PACKAGES)

fuzz: ## run each fuzz target for its budget of executions (or FUZZTIME), sequentially
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; rest=$${t#*:}; fn=$${rest%%:*}; ft="$(FUZZTIME)"; [ -n "$$ft" ] || ft=$${rest##*:}x; \
		echo "$(GO) test -run '^$$' -fuzz '^$$fn$$' -fuzztime $$ft -parallel 2 ./$$pkg"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $$ft -parallel 2 ./$$pkg || exit 1; done

chaos: ## the long chaos suite: stop (in-process) and SIGKILL (nats-server processes) the leader of every stream, bucket and phase consumer of a 3-server cluster mid-run, and the services (CI may skip it)
	@mkdir -p $(BIN)/chaos
	$(GO) build -o $(BIN)/chaos/nats-server github.com/nats-io/nats-server/v2
	$(GO) build -o $(BIN)/chaos/codali ./cmd/codali
	@for s in $(SERVICES); do $(GO) build -o $(BIN)/chaos/$$s ./services/$$s/cmd/$$s || exit 1; done
	CODALI_CHAOS=1 CODALI_CHAOS_BIN=$(abspath $(BIN)/chaos) $(GO) test -race -count=1 -timeout 60m -run 'TestChaos' -v ./cmd/codali

# Repository commands run in a bubblewrap sandbox (pkg/sandbox). Install it
# when missing, where that is possible (root with apt-get); elsewhere say
# what happens without it, and go on.
sandbox-deps: ## install bubblewrap (bwrap) for the command sandbox when missing (root + apt-get only)
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap; } \
	      || echo "warning: could not install bubblewrap: sandbox tests will skip, commands fall back to sandbox none in tests only"; \
	  else \
	    echo "warning: bubblewrap (bwrap) is missing and cannot be installed here (needs root and apt-get): sandbox tests will skip; install the bubblewrap package"; \
	  fi; }

demo: build ## run the bundled example end to end on an embedded server, then exit
	@./scripts/demo.sh $(BIN)/codali

run: build ## start codali up (embedded NATS on 127.0.0.1:4222) and keep serving
	$(BIN)/codali up --data .codali

vet: ## go vet every module
	$(GO) vet $(PACKAGES)

fmt: ## format the code
	gofmt -w $(MODULES)

tools: $(TOOLS)/staticcheck $(TOOLS)/golangci-lint ## install the pinned linters into bin/tools

$(TOOLS)/staticcheck:
	@mkdir -p $(TOOLS)
	GOWORK=off GOBIN=$(abspath $(TOOLS)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(TOOLS)/golangci-lint:
	@mkdir -p $(TOOLS)
	GOWORK=off GOBIN=$(abspath $(TOOLS)) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

lint: tools vet ## gofmt check, go vet, staticcheck and golangci-lint on every module
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(TOOLS)/staticcheck $(PACKAGES)
	@for m in $(MODULES); do echo "golangci-lint $$m"; (cd $$m && $(abspath $(TOOLS))/golangci-lint run ./...) || exit 1; done

bench: ## benchmarks: RAO footprint/replay/diff, policy, codex, cognition, worker throughput, recorder per event, built-in index (5,000 files: cold, warm load, cached query)
	$(GO) test -run '^$$' -bench . -benchmem -count 1 ./pkg/... ./services/recorder

clean:
	rm -rf $(BIN) .codali
