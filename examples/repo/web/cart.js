// The cart widget: renders items and the total.

const TAX_RATE = 0.2;

function totalPrice(items, discount) {
  const subtotal = items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  console.log("subtotal", subtotal);
  return Math.round(subtotal * (1 - discount / 100) * (1 + TAX_RATE));
}

function renderCart(element, items, discount) {
  console.log("rendering", items.length, "items");
  const total = totalPrice(items, discount);
  element.textContent = `${items.length} items, total ${(total / 100).toFixed(2)}`;
}

export { renderCart, totalPrice };
