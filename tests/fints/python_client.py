"""python-fints, a FinTS client this project did not write, against the
test suite's mock bank: connects, lists the accounts, fetches the
transactions and the balance, and prints them as one JSON line.

Usage: python python_client.py URL BANK_CODE LOGIN PIN PRODUCT_ID
"""
import datetime
import json
import logging
import sys

from fints.client import FinTS3PinTanClient, NeedTANResponse

logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
url, bank_code, login, pin, product_id = sys.argv[1:6]

client = FinTS3PinTanClient(bank_code, login, pin, url, product_id=product_id)
client.fetch_tan_mechanisms()
mechanisms = list(client.get_tan_mechanisms())
client.set_tan_mechanism(sorted(mechanisms)[0])
with client:
    if isinstance(client.init_tan_response, NeedTANResponse):
        sys.exit("the mock bank asked for a TAN at login")
    accounts = client.get_sepa_accounts()
    account = accounts[0]
    transactions = client.get_transactions(
        account, datetime.date(2024, 2, 1), datetime.date(2024, 2, 29)
    )
    if isinstance(transactions, NeedTANResponse):
        sys.exit("the mock bank asked for a TAN for the transactions")
    balance = client.get_balance(account)

print(json.dumps({
    "mechanisms": sorted(mechanisms),
    "accounts": [{"iban": a.iban, "bic": a.bic, "accountnumber": a.accountnumber} for a in accounts],
    "transactions": [
        {
            "amount": str(t.data["amount"].amount),
            "date": t.data["date"].isoformat(),
            "purpose": t.data.get("purpose"),
            "applicant_name": t.data.get("applicant_name"),
        }
        for t in transactions
    ],
    "balance": {
        "amount": str(balance.amount.amount),
        "currency": balance.amount.currency,
        "date": balance.date.isoformat(),
    },
}))
