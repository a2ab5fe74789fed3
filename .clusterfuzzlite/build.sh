#!/bin/bash -eu
# Builds the cargo-fuzz targets with the sanitizer OSS-Fuzz asks for
# ($SANITIZER, via cargo-fuzz's flags in the base image) and copies them,
# with their libFuzzer options, to $OUT. The first build compiles
# RustPython in release mode (~15 min on 2 cores).
cd "$SRC/stagecheck"
cargo fuzz build -O
target_dir=fuzz/target/x86_64-unknown-linux-gnu/release
for target in convert roundtrip; do
    cp "$target_dir/$target" "$OUT/"
    cp ".clusterfuzzlite/$target.options" "$OUT/"
done
