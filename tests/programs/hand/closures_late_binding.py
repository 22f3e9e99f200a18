# entry: late_vs_early(3)


def late_vs_early(n):
    late = [lambda: i for i in range(n)]
    early = [lambda i=i: i for i in range(n)]
    return [f() for f in late], [f() for f in early]
