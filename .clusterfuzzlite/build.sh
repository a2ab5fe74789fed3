#!/bin/bash -eu
# Builds the cargo-fuzz targets with the sanitizer the base image asks for
# (cargo-fuzz's default, AddressSanitizer; the image's RUSTFLAGS add
# -Zsanitizer=$SANITIZER) and copies them, with their libFuzzer options, to
# $OUT. The first build compiles RustPython in release mode with ASan
# (scripts/cflite, which runs this script outside a container, records the
# time in README). $CARGO_TARGET_DIR, when set (scripts/cflite sets it), is
# where cargo puts the build; in the image it is unset: fuzz/target.
cd "$SRC/stagecheck"
cargo fuzz build -O
target_dir="${CARGO_TARGET_DIR:-fuzz/target}/x86_64-unknown-linux-gnu/release"
for target in convert roundtrip; do
    cp "$target_dir/$target" "$OUT/"
    cp ".clusterfuzzlite/$target.options" "$OUT/"
done
