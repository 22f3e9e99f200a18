# entry: load_config({"port": "80", "debug": "yes"})
# entry: load_config({"port": "eighty"})


class ConfigError(Exception):
    pass


def convert(key, raw):
    try:
        return int(raw)
    except ValueError as err:
        raise ConfigError(f"bad {key}") from err


def load_config(raw):
    out = {}
    for key, value in raw.items():
        if key == "port":
            out[key] = convert(key, value)
        else:
            out[key] = value
    return out
