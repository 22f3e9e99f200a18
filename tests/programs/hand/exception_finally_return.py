# entry: cleanup_order(True)
# entry: cleanup_order(False)


def work(fail):
    if fail:
        raise RuntimeError("boom")
    return "worked"


def cleanup_order(fail):
    events = []
    try:
        events.append(work(fail))
    except RuntimeError:
        events.append("caught")
    finally:
        events.append("cleanup")
    return events
