# make test runs everything CI runs. Each editor script installs what it
# needs (idempotently) before it tests.
GO ?= go

.PHONY: build test test-go test-node test-neovim test-emacs test-vscode bench

build:
	$(GO) build -o bin/cb-ls ./cmd/cb-ls

test: test-go test-node test-neovim test-emacs test-vscode

test-go:
	bash scripts/test-go.sh

test-node:
	bash scripts/test-node-client.sh
	bash scripts/test-acp-client.sh
	bash scripts/test-project-tools.sh

test-neovim:
	bash scripts/test-neovim.sh

test-emacs:
	bash scripts/test-emacs.sh

test-vscode:
	bash scripts/test-vscode.sh

bench:
	bash bench/run.sh
