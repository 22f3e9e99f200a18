# entry: guarded(True)
# entry: guarded(False)


class Recorder:
    def __init__(self):
        self.log = []

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit:" + (exc_type.__name__ if exc_type else "ok"))
        return True


def guarded(fail):
    rec = Recorder()
    with rec as r:
        r.log.append("body")
        if fail:
            raise KeyError("x")
        r.log.append("after")
    return rec.log
