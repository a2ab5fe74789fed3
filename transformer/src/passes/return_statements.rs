//! Pass 6, `return`: when a function returns from inside a statement that
//! will be converted, every `return x` becomes `retval_ = x; do_return =
//! True` (the value first: if it raises, nothing returned), code after it
//! runs under `if not do_return:`, loops that may return stop on
//! `not do_return`, and the function ends with `return retval_`
//! (AutoGraph's return_statements).

use super::exits::{self, Exit};
use crate::ast_build::{self, Sub};
use crate::blocks;
use crate::context::FunctionContext;
use ruff_python_ast::Stmt;
use ruff_text_size::{Ranged, TextRange};

pub fn run(body: &mut Vec<Stmt>, cx: &mut FunctionContext, at: usize) {
    let nested_return =
        body.iter().any(|s| blocks::blocks(s).into_iter().any(|b| blocks::any_stmt(b, &mut |s| matches!(s, Stmt::Return(_)))));
    if !nested_return {
        return;
    }
    let do_return = cx.namer.new_name("do_return");
    let retval = cx.namer.new_name("retval_");
    let (flag, value) = (do_return.clone(), retval.clone());
    let mut lower = move |r: Stmt| {
        let Stmt::Return(r) = r else { unreachable!() };
        let v = r.value.map(|v| *v).unwrap_or_else(ast_build::none);
        ast_build::stmts(
            "VALUE = V\nFLAG = True",
            r.range,
            vec![("VALUE", Sub::Name(value.clone())), ("V", Sub::Expr(v)), ("FLAG", Sub::Name(flag.clone()))],
        )
    };
    let mut exit = Exit {
        is_exit: &|s| matches!(s, Stmt::Return(_)),
        lower: &mut lower,
        flag: do_return.clone(),
        value: Some(retval.clone()),
        through_loops: true,
        loops: Vec::new(),
    };
    let mut rest = body.split_off(at);
    exit.block(&mut rest);
    for l in std::mem::take(&mut exit.loops) {
        cx.extra_tests.entry(l).or_default().push(do_return.clone());
    }
    let origin = rest.first().map(|s| s.range()).unwrap_or_default();
    body.extend(exits::reset(&do_return, Some(&retval), origin));
    body.extend(rest);
    let end = body.last().map(|s| TextRange::empty(s.range().end())).unwrap_or_default();
    body.push(ast_build::stmt("return VALUE", end, vec![("VALUE", Sub::Name(retval))]));
}
