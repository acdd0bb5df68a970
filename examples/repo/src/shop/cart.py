"""A shopping cart: items, quantities and the total."""

from dataclasses import dataclass, field

from shop.pricing import apply_discount, with_tax


@dataclass
class Item:
    name: str
    price: int  # cents
    quantity: int = 1


@dataclass
class Cart:
    items: list[Item] = field(default_factory=list)
    discount: int = 0  # percent

    def add(self, name, price, quantity=1):
        print("adding", name)
        self.items.append(Item(name, price, quantity))

    def remove(self, name):
        self.items = [item for item in self.items if item.name != name]


def total_price(cart):
    subtotal = sum(item.price * item.quantity for item in cart.items)
    return with_tax(apply_discount(subtotal, cart.discount))


def format_total(cart):
    cents = total_price(cart)
    return f"{cents // 100}.{cents % 100:02d}"
