#!/usr/bin/env bash
# Regenerates seqdv1/ from proto/ with pinned generators. The generated code
# is committed: building seqshim needs none of these tools.
set -euo pipefail
cd "$(dirname "$0")"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN=$bin go install github.com/bufbuild/buf/cmd/buf@v1.75.0
GOBIN=$bin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
GOBIN=$bin go install connectrpc.com/connect/cmd/protoc-gen-connect-go@v1.21.1
PATH=$bin:$PATH buf lint
PATH=$bin:$PATH buf generate
