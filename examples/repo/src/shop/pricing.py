"""Prices and discounts, in cents."""

TAX_RATE = 0.2


def apply_discount(price, percent):
    if not 0 <= percent <= 100:
        raise ValueError(f"discount must be 0-100, got {percent}")
    return round(price * (100 - percent) / 100)


def with_tax(price):
    return round(price * (1 + TAX_RATE))
