//! stagecheck-generator: bytes -> always-valid, terminating Python programs
//! (wasm-smith style, with an `Arbitrary` Config for swarm testing). The
//! generator itself is issue 5; this crate holds its place in the workspace.
