#!/usr/bin/env bash
# The quick mode of the side-by-side harness: `bench/run.sh quick` (all ten scenarios, all four
# servers, a few minutes). Kept under its old name; the same settings apply, e.g.
#   SCENARIOS="respond static-small" SERVERS="nginx strait" bench/quick.sh
# See bench/README.md.
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" quick "$@"
