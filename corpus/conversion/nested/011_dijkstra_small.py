# id: conv-nested-011
# construct: nested
# modes: original,unstaged
# expect: agree
# about: Dijkstra's shortest paths on a small graph with nested loops, continue and a linear-scan priority queue

def dijkstra(graph, src):
    dist = {src: 0}
    done = set()
    while True:
        best = None
        for node, d in dist.items():
            if node in done:
                continue
            if best is None or d < dist[best]:
                best = node
        if best is None:
            break
        done.add(best)
        for nxt, w in graph.get(best, []):
            nd = dist[best] + w
            if nxt not in dist or nd < dist[nxt]:
                dist[nxt] = nd
    return dist


g = {'a': [('b', 4), ('c', 1)], 'c': [('b', 2), ('d', 7)], 'b': [('d', 1)], 'd': []}
res = dijkstra(g, 'a')
print(sorted(res.items()))
print(sorted(dijkstra(g, 'd').items()))
