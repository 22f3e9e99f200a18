# entry: safe_ratio(10, 2)
# entry: safe_ratio(1, 0)


def safe_ratio(a, b):
    log = []
    try:
        value = a / b
    except ZeroDivisionError:
        log.append("zero")
        value = None
    else:
        log.append("ok")
    finally:
        log.append("done")
    return value, log
