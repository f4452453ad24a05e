// orders.cpp - generating deterministic orders and serving them, catching the
// exceptions that out-of-stock and unknown items raise in normal operation.
#include "inventory.hpp"

namespace inv {

namespace {
std::uint32_t next_random(std::uint32_t &state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}
} // namespace

std::vector<OrderLine> generate_orders(std::size_t n, unsigned n_items, std::uint32_t seed) {
  std::vector<OrderLine> orders;
  orders.reserve(n);
  std::uint32_t state = seed;
  for (std::size_t i = 0; i < n; i++) {
    // One SKU in 50 does not exist: the registry throws std::out_of_range.
    unsigned r = next_random(state);
    unsigned item = r % (n_items + n_items / 50);
    orders.push_back({"SKU-" + std::to_string(item), 1 + (r >> 16) % 9});
  }
  return orders;
}

OrderStats process_orders(Warehouse &w, const std::vector<OrderLine> &orders) {
  OrderStats stats;
  for (const auto &line : orders) {
    stats.lines++;
    try {
      stats.revenue_cents += w.take(line.sku, line.quantity);
      stats.served++;
    } catch (const OutOfStock &) {
      stats.backordered++;
    } catch (const std::out_of_range &) {
      stats.unknown++;
    }
    if (stats.lines % 1000 == 0)
      w.restock_below(5, 40);
  }
  return stats;
}

} // namespace inv
