#!/usr/bin/env bash
set -euo pipefail
echo "test-neovim: nothing yet"
