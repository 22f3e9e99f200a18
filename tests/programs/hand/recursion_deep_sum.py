# entry: sum_to(30)
# entry: count_down_list(30)


def sum_to(n):
    if n == 0:
        return 0
    return n + sum_to(n - 1)


def count_down_list(n):
    if n == 0:
        return []
    rest = count_down_list(n - 1)
    rest.append(n)
    return rest
