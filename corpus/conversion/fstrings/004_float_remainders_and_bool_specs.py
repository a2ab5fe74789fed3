# id: conv-fstrings-004
# construct: fstring
# modes: original,unstaged,staged
# expect: agree
# about: float %, // and divmod at exact divisions, infinities and zeros, 0 / -4, and a bool under a format spec, in f-strings and loops (each differed from CPython in RustPython 0.5: found by fuzz --oracle cpython, fixed in the vendored VM, executor/vendor/rustpython-vm/PATCHES.md)
# origin: fuzz --oracle cpython --seed 101 and 102 (plain family's float rows), reduced by hand, 2026-11-25
# status: fixed

inf = float('inf')


def table(values, divisors):
    rows = []
    for a in values:
        for b in divisors:
            rows.append(f"{a!r:>6} {b!r:>5} {a % b!r} {a // b!r} {divmod(a, b)!r}")
    return rows


lines = table([7.5, -7.5, -3, 0, inf], [-2.5, 0.75, 3])
ok = all(isinstance(x, str) for x in lines)
flags = [f"{x = :>4}" for x in (False, True)]
zeros = (0 / -4, False / -1, 0 / 10 ** 30)
print(len(lines), lines[0], lines[-1], flags, zeros, ok)
