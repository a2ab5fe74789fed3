//! Literal reductions: integers shrink toward 0 (to 0, by halving, by one).
//! Sites are those of [`super::expressions`]; only integer literals have candidates.

use super::expressions::{at, count, with};
use super::Pass;
use stagecheck_transformer::syntax::ast::{Expr, Int, Number, Suite};

pub const INTEGERS: Pass = Pass { name: "shrink integers", sites: count, candidates: shrink };

/// The smaller values an integer literal may take, smallest first.
pub fn smaller(n: Option<u64>) -> Vec<u64> {
    let mut out = match n {
        // Too large for u64: 0 and 1 are enough to try.
        None => vec![0, 1],
        Some(0) => vec![],
        Some(n) => vec![0, n / 2, n - 1],
    };
    out.dedup();
    out.retain(|&v| n.is_none_or(|n| v < n));
    out
}

fn shrink(tree: &Suite, k: usize) -> Vec<Suite> {
    let Some(Expr::NumberLiteral(lit)) = at(tree, k) else { return vec![] };
    let Number::Int(n) = &lit.value else { return vec![] };
    smaller(n.as_u64())
        .into_iter()
        .map(|v| {
            let mut lit = lit.clone();
            lit.value = Number::Int(Int::from(v));
            with(tree, k, Expr::NumberLiteral(lit))
        })
        .collect()
}
