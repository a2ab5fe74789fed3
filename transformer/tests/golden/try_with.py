def guarded(items, cm):
    out = []
    for x in items:
        with cm:
            try:
                out.append(1 // x)
            except ZeroDivisionError as e:
                out.append(str(e))
                continue
            finally:
                out.append('f')
    return out
