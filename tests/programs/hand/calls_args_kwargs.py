# entry: call_all(1, 2, 3, scale=10)
# entry: call_all()


def collect(*args, **kwargs):
    scale = kwargs.get("scale", 1)
    return [a * scale for a in args]


def call_all(*numbers, **options):
    scaled = collect(*numbers, **options)
    return sum(scaled), len(options)
