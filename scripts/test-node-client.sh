#!/usr/bin/env bash
set -euo pipefail
echo "test-node-client: nothing yet"
