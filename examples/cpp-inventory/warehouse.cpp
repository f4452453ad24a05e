// warehouse.cpp - stock keeping: taking stock throws inv::OutOfStock when an
// order line asks for more than is left.
#include "inventory.hpp"

#include <numeric>

namespace inv {

OutOfStock::OutOfStock(const std::string &sku, unsigned wanted, unsigned left)
    : std::runtime_error("out of stock: " + sku), shortfall_(wanted - left) {}

void Warehouse::stock(Item item) {
  std::string key = item.sku;
  items_.add(key, std::move(item));
}

unsigned Warehouse::take(const std::string &sku, unsigned quantity) {
  Item &item = items_.at(sku);
  if (item.stock < quantity)
    throw OutOfStock(sku, quantity, item.stock);
  item.stock -= quantity;
  return quantity * item.price_cents;
}

void Warehouse::restock_below(unsigned threshold, unsigned amount) {
  std::vector<std::string> low;
  items_.for_each([&](const std::string &sku, const Item &item) {
    if (item.stock < threshold)
      low.push_back(sku);
  });
  for (const auto &sku : low)
    items_.at(sku).stock += amount;
}

std::uint64_t Warehouse::stock_value_cents() const {
  std::vector<std::uint64_t> values;
  items_.for_each([&](const std::string &, const Item &item) {
    values.push_back(std::uint64_t(item.stock) * item.price_cents);
  });
  return std::accumulate(values.begin(), values.end(), std::uint64_t(0));
}

} // namespace inv
