// inventory.hpp - the warehouse model of the cpp-inventory example: items,
// a generic registry template, the warehouse and the exception it throws
// when an order cannot be served.
#ifndef CPP_INVENTORY_INVENTORY_HPP
#define CPP_INVENTORY_INVENTORY_HPP

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace inv {

struct Item {
  std::string sku;
  std::string name;
  unsigned price_cents;
  unsigned stock;
};

class OutOfStock : public std::runtime_error {
public:
  OutOfStock(const std::string &sku, unsigned wanted, unsigned left);
  unsigned shortfall() const { return shortfall_; }

private:
  unsigned shortfall_;
};

// A keyed store of values with lookup that throws for unknown keys.
template <typename Key, typename Value> class Registry {
public:
  Value &add(const Key &key, Value value) { return entries_[key] = std::move(value); }
  // Out of line on purpose, so the profile shows a template instantiation
  // under its own name rather than inlined into its callers.
  [[gnu::noinline]] Value &at(const Key &key) {
    auto it = entries_.find(key);
    if (it == entries_.end())
      throw std::out_of_range("unknown key");
    return it->second;
  }
  template <typename Fn> void for_each(Fn fn) const {
    for (const auto &kv : entries_)
      fn(kv.first, kv.second);
  }
  std::size_t size() const { return entries_.size(); }

private:
  std::map<Key, Value> entries_;
};

struct OrderLine {
  std::string sku;
  unsigned quantity;
};

class Warehouse {
public:
  void stock(Item item);
  // Removes quantity from stock; throws OutOfStock (nothing taken) if short.
  unsigned take(const std::string &sku, unsigned quantity);
  void restock_below(unsigned threshold, unsigned amount);
  std::uint64_t stock_value_cents() const;
  std::size_t item_count() const { return items_.size(); }

private:
  Registry<std::string, Item> items_;
};

struct OrderStats {
  unsigned lines = 0, served = 0, backordered = 0, unknown = 0;
  std::uint64_t revenue_cents = 0;
};

// Serves every order line; OutOfStock and unknown SKUs are caught and counted.
OrderStats process_orders(Warehouse &w, const std::vector<OrderLine> &orders);
// A deterministic list of `n` order lines over `n_items` SKUs.
std::vector<OrderLine> generate_orders(std::size_t n, unsigned n_items, std::uint32_t seed);

} // namespace inv

#endif
