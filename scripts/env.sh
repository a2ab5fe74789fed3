# Sourced by the project's scripts: one persistent build directory outside
# the clone, so that CI and fresh clones reuse the ~15-minute RustPython build.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${HOME:-/root}/.cache/stagecheck/target}"
mkdir -p "$CARGO_TARGET_DIR"
# Cargo names a workspace's artifacts the same in every checkout and judges
# their freshness by file times: after another checkout (a CI clone, a git
# worktree) built here, this one's older sources look up to date and its
# tests would run the other's code, with the other's paths compiled in. When
# the checkout changes, make this one's sources newer (content is untouched).
stamp="$CARGO_TARGET_DIR/.checkout"
here="$(git rev-parse --show-toplevel 2>/dev/null || pwd -P)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$here" ]; then
    (cd "$here" && git ls-files -z -- '*.rs' '*.py' '*.toml' '*.wgsl' 2>/dev/null | xargs -0 -r touch) || true
    echo "$here" > "$stamp"
fi
