def checked(x):
    assert x >= 0, 'negative: %d' % x
    assert x != 13
    return abs(x)
