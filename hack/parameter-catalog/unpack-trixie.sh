#!/usr/bin/env bash
# Debian 13's postgresql-17 for hack/parameter-catalog/generate.ts (see unpack-debian.sh).
# Usage: hack/parameter-catalog/unpack-trixie.sh
exec "$(dirname "${BASH_SOURCE[0]}")/unpack-debian.sh" trixie 17
