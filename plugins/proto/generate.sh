#!/usr/bin/env bash
# Regenerates skillsource.pb.go and skillsource_grpc.pb.go from
# skillsource.proto (`go generate ./plugins/proto`). protoc comes from the
# system (Debian: protobuf-compiler, 3.21.12); the Go generators are
# pinned here and built from the Go module proxy into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")"
PROTOC_GEN_GO=google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC=google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
want_protoc="libprotoc 3.21.12"
if ! command -v protoc >/dev/null; then
  echo "protoc not found: install it (Debian: apt-get install protobuf-compiler)" >&2
  exit 1
fi
if [ "$(protoc --version)" != "$want_protoc" ]; then
  echo "protoc is $(protoc --version); the checked-in code was made with $want_protoc" >&2
  exit 1
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN=$bin go install "$PROTOC_GEN_GO"
GOBIN=$bin go install "$PROTOC_GEN_GO_GRPC"
protoc --plugin=protoc-gen-go="$bin/protoc-gen-go" --plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
  --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative \
  skillsource.proto
