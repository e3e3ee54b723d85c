#!/usr/bin/env bash
set -euo pipefail
echo "test-vscode: nothing yet"
