# Sourced by the project's scripts: one persistent build directory outside
# the clone, so that CI and fresh clones reuse the ~15-minute RustPython build.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${HOME:-/root}/.cache/stagecheck/target}"
mkdir -p "$CARGO_TARGET_DIR"
