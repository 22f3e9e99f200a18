# entry: run_ledger([("deposit", 50), ("withdraw", 20), ("withdraw", 100), ("deposit", 5)])
# entry: run_ledger([("withdraw", 1)])


class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self):
        self.balance = 0

    def deposit(self, amount):
        self.balance += amount

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(f"need {amount}, have {self.balance}")
        self.balance -= amount


def run_ledger(ops):
    acct = Account()
    failures = 0
    for kind, amount in ops:
        try:
            getattr(acct, kind)(amount)
        except InsufficientFunds:
            failures += 1
    return acct.balance, failures
