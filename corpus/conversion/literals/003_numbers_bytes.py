# id: conv-literals-003
# construct: literals
# modes: original,unstaged
# expect: agree
# about: issue 16: numbers, bytes and raw strings keep their text (floats at the edges, big ints, complex, every byte)

def values():
    out = []
    if out is not None:
        out.append((0.9999999999999999, 5e-324, 1.7976931348623157e308, 1e999, 1e-7, .5, 1.))
        out.append((123456789012345678901234567890123456789, 0x_dead_BEEF, 0o17, 0b1011, 1_000))
        out.append((2j, 1e999j, 5e-324J))
        out.append((b'\x00\x7f\x80\xff\377', rb'\xff\d', r"\ud800\N{x}"))
    return out


for v in values():
    print(v)
