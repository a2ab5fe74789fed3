//! Fresh names. Every name a program binds is new (a prefix saying what it is
//! and a counter), so no local shadows a global, no closure captures a name
//! that is rebound elsewhere by accident, and the scoping rules the generator
//! must follow stay the few in `scope.rs`. The prelude's names (`_tick`,
//! `note`, `log`, `OutOfFuel`, `Boom`, `_fuel`) never collide with them.

/// A counter per program.
#[derive(Debug, Default)]
pub struct Names {
    next: u32,
}

impl Names {
    /// `prefix` followed by a number never used before in this program:
    /// `v` variables, `p` parameters, `i` loop targets, `n` loop counters,
    /// `f` functions, `h` nested functions, `r` recursive functions, `gen`
    /// generators, `e` caught exceptions, `t`/`x` tensors and staged functions.
    pub fn fresh(&mut self, prefix: &str) -> String {
        let n = self.next;
        self.next += 1;
        format!("{prefix}{n}")
    }
}
