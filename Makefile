# mcec — see README.md. `make run` and `make test` work on a fresh Debian 12 machine with Go.
GO      ?= go
BIN     := bin/mcec
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/mcec/mcec/internal/daemon.Version=$(VERSION)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# What the private desktop needs from Debian, and what the tests add: x11-utils (xmessage, an app
# without a tree), xterm (another), python3-gi with GTK 3 (small test apps), gcc (the race
# detector). tesseract-ocr is get-text's OCR engine.
DESKTOP_PACKAGES := xvfb at-spi2-core dbus dbus-x11 libatk-adaptor openbox gtk-3-examples tesseract-ocr
TEST_PACKAGES    := $(DESKTOP_PACKAGES) x11-utils xterm python3 python3-gi gir1.2-gtk-3.0 gcc libc6-dev
export CGO_ENABLED := 0

.PHONY: all deps test-deps build run test lint fmt-check vet staticcheck clean

all: build

deps:
	@scripts/install-deps.sh $(DESKTOP_PACKAGES)

test-deps:
	@scripts/install-deps.sh $(TEST_PACKAGES)

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/mcec

# Starts mcec on its own private headless desktop with gtk3-widget-factory inside, serving HTTP
# on 127.0.0.1:5151. In another shell: bin/mcec call windows
run: deps build
	$(BIN) serve --headless --launch gtk3-widget-factory

# Every test, against real private desktops (one per test package), plus format and static checks.
test: test-deps lint
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 15m ./...

lint: fmt-check vet staticcheck

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

clean:
	rm -rf bin
