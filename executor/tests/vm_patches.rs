//! The fixes in executor/vendor/rustpython-vm/PATCHES.md, each shown on the
//! program that exposed it. The published crate fails every one of these.

mod common;

use common::stdout;

/// `x += y` specialises, once warm, to the same instruction as `x + y` on
/// exact ints, floats or strs; when a later operand is a subclass the
/// specialised instruction falls back to the generic operator, which must be
/// `+=` (so `__iadd__` runs, and an error says `+=`), not `+`. CPython prints
/// what is asserted. The loops run past the VM's warm-up so that the
/// instruction is specialised before the subclass arrives.
#[test]
fn a_specialised_augmented_assignment_stays_augmented() {
    let src = r#"
class S(str):
    def __iadd__(self, o):
        return S("iadd")
class I(int):
    def __iadd__(self, o):
        return "iadd"
    def __isub__(self, o):
        return "isub"
    def __imul__(self, o):
        return "imul"
class F(float):
    def __iadd__(self, o):
        return "fiadd"
def cell(make, op):
    # a cell variable, as every loop-body variable is after conversion
    for i in range(40):
        x = make(i)
        def keep():
            return x
        if op == "+":
            x += 1 if not isinstance(x, str) else "t"
        elif op == "-":
            x -= 1
        else:
            x *= 2
    return x
print(cell(lambda i: S("a") if i > 20 else "b", "+"))
print(cell(lambda i: I(1) if i > 20 else 2, "+"))
print(cell(lambda i: I(1) if i > 20 else 2, "-"))
print(cell(lambda i: I(1) if i > 20 else 2, "*"))
print(cell(lambda i: F(1.5) if i > 20 else 2.5, "+"))
for i in range(40):
    y = 2 if i < 39 else None
    try:
        y += 1
    except TypeError as e:
        print(e)
"#;
    assert_eq!(
        stdout(src),
        "iadd\niadd\nisub\nimul\nfiadd\nunsupported operand type(s) for +=: 'NoneType' and 'int'\n"
    );
}
