#!/usr/bin/env bash
# Sets up, builds the host preset and runs the main job: `attn demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh host
cmake --preset host >/dev/null
cmake --build --preset host -j "$(nproc)" --target attn_cli
build/host/tools/attn demo
