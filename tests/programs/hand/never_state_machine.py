# entry: machine("idle")


TRANSITIONS = {"idle": "busy", "busy": "done", "done": "idle"}


def advance(state):
    return TRANSITIONS[state]


def machine(state):
    history = []
    while True:
        state = advance(state)
        history.append(state)
        if len(history) > 5:
            history.pop(0)
