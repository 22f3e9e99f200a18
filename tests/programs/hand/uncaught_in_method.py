# entry: withdraw_all([30, 20, 60])
# entry: withdraw_all([10])


class Wallet:
    def __init__(self, amount):
        self.amount = amount

    def take(self, n):
        if n > self.amount:
            raise ValueError(f"only {self.amount} left")
        self.amount -= n
        return self.amount


def withdraw_all(requests):
    wallet = Wallet(100)
    left = []
    for r in requests:
        left.append(wallet.take(r))
    return left
