//! stagecheck-transformer: Python source -> converted Python source + source
//! map (Snek's rules and AutoGraph's converters, one pass per file). It knows
//! nothing of the VM. The conversion itself is issue 3; this crate holds its
//! place in the workspace so that the layout of ARCHITECTURE.md is the real one.
