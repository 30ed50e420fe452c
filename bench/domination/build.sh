#!/usr/bin/env bash
# Build the shared Domination arena (its build.sh: Domination's engine core and AI, and its
# bridge) into BUILD, then our ModesBridge beside it (bench/domination/dom_modes.py).
#   bench/domination/build.sh [DOMINATION_CHECKOUT] [BUILD_DIR] [SHARED_ARENA_DIR]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
DOM="${1:-/tmp/arena-dom/domination}"
BUILD="${2:-/tmp/arena-dom/build-dom}"
SHARED="${3:-${RISK_DOM_ARENA:+$(dirname "$RISK_DOM_ARENA")}}"
SHARED="${SHARED:-/work/shared/arena/domination}"
bash "$SHARED/build.sh" "$DOM" "$BUILD"
javac -nowarn -encoding UTF-8 -d "$BUILD" -cp "$BUILD" "$HERE/java/arena/ModesBridge.java"
test -f "$BUILD/arena/ModesBridge.class"
echo "built $BUILD with arena.ModesBridge"
