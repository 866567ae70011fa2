# mcec — see README.md. `make run` and `make test` work on a fresh Debian 12 machine with Go.
GO      ?= go
BIN     := bin/mcec
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/mcec/mcec/internal/daemon.Version=$(VERSION)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# What the private desktop needs from Debian, and what the tests add: x11-utils (xmessage, an app
# without a tree), xterm (another), python3-gi with GTK 3 (small test apps), gcc (the race
# detector). tesseract-ocr is get-text's OCR engine.
# The reach suite (internal/reach, docs/reach.md) adds one app of each toolkit: gir1.2-gtk-4.0 (its
# GTK 4 form) and gtk-4-examples (gtk4-demo); python3-pyqt5 and python3-pyqt6 (its Qt forms) and
# featherpad (a real Qt 5 app); chromium and firefox-esr (its web form); libreoffice-writer,
# libreoffice-calc and libreoffice-gtk3 (Writer and Calc, on the VCL plugin that has an AT-SPI
# bridge); default-jre with libatk-wrapper-java and its -jni (a Swing form and the ATK wrapper that
# publishes its tree); tk8.6 (wish, a Tk form without a tree); qtwayland5 and qt6-wayland (Qt's
# Wayland platform plugins, for the reach suite's Wayland rows).
# The task suite (internal/tasks, docs/tasks.md) adds galculator (a real GTK 3 calculator); the
# tools' tests add zenity (a real GTK 3 save file chooser). The Wayland client's tests compare with
# grim (screencopy) and wl-clipboard (data-control). The KWin adapter's tests
# (internal/platform/wayland/kwintest) run KDE's compositor on its virtual backend: kwin-wayland;
# the GNOME adapter's (gnometest) a headless gnome-shell with mcec's extension: gnome-shell; and
# GNOME without the extension, keys through the RemoteDesktop portal: xdg-desktop-portal-gnome.
# The wlroots path without sway's IPC (phoctest, and the tasks' "-phoc" rows) runs on Phosh's
# compositor: phoc.
DESKTOP_PACKAGES := xvfb at-spi2-core dbus dbus-x11 libatk-adaptor libgail-common openbox gtk-3-examples tesseract-ocr
# The private Wayland desktop (--desktop wayland) adds its compositor; the container image
# (deploy/container) carries the X11 desktop only.
WAYLAND_PACKAGES := sway
REACH_PACKAGES   := gir1.2-gtk-4.0 gtk-4-examples python3-pyqt5 python3-pyqt6 featherpad chromium firefox-esr epiphany-browser gtk2.0-examples terminology \
	libreoffice-writer libreoffice-calc libreoffice-gtk3 default-jre libatk-wrapper-java libatk-wrapper-java-jni tk8.6 \
	qtwayland5 qt6-wayland
TASKS_PACKAGES   := galculator zenity
WAYLAND_TEST_PACKAGES := grim wl-clipboard kwin-wayland gnome-shell xdg-desktop-portal xdg-desktop-portal-gnome phoc
TEST_PACKAGES    := $(DESKTOP_PACKAGES) $(WAYLAND_PACKAGES) x11-utils xterm python3 python3-gi gir1.2-gtk-3.0 gcc libc6-dev $(REACH_PACKAGES) $(TASKS_PACKAGES) \
	$(WAYLAND_TEST_PACKAGES)
# What make bench compares mcec with: pyatspi, ImageMagick (import, convert), xdotool, xwd; on
# Wayland grim (in the test packages) and wtype.
BENCH_PACKAGES   := $(TEST_PACKAGES) python3-pyatspi imagemagick xdotool x11-apps wtype
export CGO_ENABLED := 0

.PHONY: all deps test-deps clients-deps build run test reach tasks soak fuzz lint fmt-check vet staticcheck bench microbench helm-test clean

all: build

deps:
	@scripts/install-deps.sh $(DESKTOP_PACKAGES) $(WAYLAND_PACKAGES)

test-deps:
	@scripts/install-deps.sh $(TEST_PACKAGES)

# The real MCP clients cmd/mcec's tests drive (conformance suite, Inspector, TypeScript SDK, on
# Node 22), pinned by test/clients/package-lock.json; a no-op when already installed.
clients-deps:
	@scripts/install-clients.sh

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/mcec

# Starts mcec on its own private headless desktop with gtk3-widget-factory inside, serving HTTP
# on 127.0.0.1:5151. In another shell: bin/mcec call windows
run: deps build
	$(BIN) serve --headless --launch gtk3-widget-factory

# Every test, against real private desktops (one per test package), plus format and static checks.
# The per-package timeout catches a hang; it leaves room for the reach suite (35 apps), which
# took 15 min on a machine loaded by a second make test, where every deadline stretches.
test: test-deps clients-deps lint
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m ./...
	$(MAKE) fuzz
	@$(MAKE) --no-print-directory microbench
	@$(MAKE) --no-print-directory helm-test

# The cross-toolkit reach suite alone (it also runs in make test): one app of each toolkit on its
# own private desktop; rewrites docs/reach.md from the run.
reach: test-deps
	$(GO) test -count=1 -timeout 10m ./internal/reach -run TestReach -reach.write -v

# The task suite (issue 15): scripted multi-step jobs on real apps of every toolkit, each checked
# by an independent read-back, one private desktop per task (2 at once); rewrites docs/tasks.md
# with tool calls, wall time and the o200k_base tokens of the results (js-tiktoken, clients-deps).
# make test runs only its quick subset (a plain go test ./internal/tasks); -tasks.all runs all.
tasks: test-deps clients-deps
	$(GO) test -count=1 -timeout 20m ./internal/tasks -run TestTasks -tasks.all -tasks.write -v

# The fault and soak suite (issue 17) for SOAK_MINUTES: every transport's clients with valid and bad
# input, slow and abandoned connections, frozen, crashed and closed apps, SIGTERM and SIGKILL of
# mcec; checks envelopes, panics, growth, held input, leftovers and evidence; rewrites
# docs/reliability.md. make test runs it for a minute (a plain go test ./internal/soak).
SOAK_MINUTES ?= 10
soak: test-deps
	$(GO) test -count=1 -timeout $$(( $(SOAK_MINUTES) + 10 ))m ./internal/soak -run TestSoak -soak.duration $(SOAK_MINUTES)m -soak.write -v

# The hot paths' micro-benchmarks, briefly (3 iterations each), so a slowdown shows in review:
# envelope encode, blank check, PNG encode, and the tree read of gtk3-widget-factory.
microbench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./contract ./internal/imaging
	$(GO) test -run '^$$' -bench 'TreeWidgetFactory$$' -benchtime 3x ./internal/platform/atspi

# mcec side by side with pyatspi, ImageMagick, xwd, xdotool and polling loops, on a private
# desktop, then the density group (1-16 isolated instances at once; docs/scale.md); prints the
# table and writes docs/performance.md (docs/performance.md says how). The token rows count with
# js-tiktoken (clients-deps). One group alone: go run ./cmd/mcec-bench -only density (the report
# is then not written).
bench: build clients-deps
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	$(GO) run ./cmd/mcec-bench -mcec $(BIN)

# Each fuzz target in a package that needs no desktop, FUZZTIME each (Go fuzzes one target per
# run). Their seed corpora (testdata/fuzz) also run as plain tests in `go test ./...`.
FUZZTIME ?= 5s
FUZZ_TARGETS := FuzzStdioFraming:./internal/transport FuzzFacade:./internal/transport \
	FuzzParseAddr:./internal/transport FuzzToolArgs:./internal/tools/argfuzz \
	FuzzNeutralize:./internal/consent \
	FuzzParseEvent:./internal/xinput2 FuzzParseQueryDevice:./internal/xinput2 FuzzParseSetup:./internal/xinput2 \
	FuzzParseDeviceEvent:./internal/xinput2 FuzzParseKeyboardMapping:./internal/xinput2 FuzzPickCookie:./internal/xinput2 \
	FuzzReadMessage:./internal/platform/atspi/dbuswire FuzzEncodePNG:./internal/imaging FuzzDownscale:./internal/imaging \
	FuzzDispatch:./internal/wayland/wire FuzzReadMessage:./internal/wayland/swayipc \
	FuzzBuild:./internal/traceview FuzzReadCookie:./internal/headless
fuzz:
	@GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh $(FUZZ_TARGETS)

# The Helm chart (deploy/helm/mcec): helm lint and helm template against its golden files. helm is
# pinned in scripts/helm.sh and built once from the Go module proxy into ~/.cache/mcec (about 5 CPU
# minutes the first time; nothing enters go.mod). scripts/helm-test.sh --update rewrites the goldens.
helm-test:
	@GO=$(GO) scripts/helm-test.sh

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
