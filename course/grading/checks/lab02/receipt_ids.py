"""02.send_receipt's ids: each play of a scenario under ids of its own (split from send_receipt.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ids:
    """A play's own ids for the scene's customers and orders, never used by an earlier play: a handler that
    keeps something from one job to the next (by customer, by order) cannot carry it from one scenario into
    another, so each scenario is judged on what happens inside it, and shrinks to an example that shows it.
    `crossed` gives a customer the id of an order that is not theirs: a handler that joins the customer on the
    order's id instead of its customer_id then reads another customer, not a missing one (red0's round)."""
    play: int
    crossed: tuple[tuple[int, int], ...] = ()  # (customer, order): that customer's id is that order's id

    def customer(self, customer: int) -> int:
        for who, order_id in self.crossed:
            if who == customer:
                return self.order(order_id)
        return 100 * self.play + customer

    def order(self, order_id: int) -> int:
        return 100_000 * self.play + order_id

    def email(self, address: str) -> str:
        """The address with a tag of this play's own (ana+p7@example.com): a handler that keeps emails cannot
        carry one from a scenario into another either."""
        local, _, domain = address.rpartition("@")
        return f"{local}+p{self.play}@{domain}"

    def logical_email(self, address: str) -> str:
        return address.replace(f"+p{self.play}@", "@")

    def logical(self, text: str, scene) -> str:  # scene: a send_receipt.Receipts
        for order_id, _, _ in scene.orders:
            text = text.replace(f"#{self.order(order_id)}", f"#{order_id}")
        return text
