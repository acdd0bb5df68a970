from shop.cart import Cart, format_total, total_price


def test_total_applies_discount_then_tax():
    cart = Cart(discount=10)
    cart.add("tea", 500, 2)
    assert total_price(cart) == 1080


def test_format_total():
    cart = Cart()
    cart.add("cake", 250)
    assert format_total(cart) == "3.00"
