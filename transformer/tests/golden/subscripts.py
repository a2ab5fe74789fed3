def bump(table, key):
    table[key] = table[key] + 1
    table[key] += 1
    return table[1:]
