#!/usr/bin/env bash
# Regenerates the Python message modules in gen/ from skillmux's
# protocol (plugins/proto/skillsource.proto) and the two go-plugin
# services in proto/. Needs protoc 3.21 (Debian: protobuf-compiler), whose
# Python output matches Debian's python3-protobuf. The gRPC service code is
# written by hand in plugin.py, so no gRPC code generator is needed.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf gen && mkdir gen
protoc -I ../../../plugins/proto --python_out=gen skillsource.proto
protoc -I proto --python_out=gen health.proto controller.proto
touch gen/__init__.py
