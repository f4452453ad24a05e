// main.cpp - cpp-inventory: stocks a warehouse, serves generated orders and
// prints what happened.   usage: cpp-inventory [ORDERS]
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "inventory.hpp"

int main(int argc, char **argv) {
  const unsigned n_items = 500;
  std::size_t n_orders = 200000;
  if (argc > 2 || (argc == 2 && (n_orders = std::strtoul(argv[1], nullptr, 10)) == 0)) {
    std::cerr << "usage: cpp-inventory [ORDERS]\n";
    return 2;
  }
  inv::Warehouse w;
  for (unsigned i = 0; i < n_items; i++)
    w.stock({"SKU-" + std::to_string(i), "item " + std::to_string(i), 100 + i % 700, 20});
  auto orders = inv::generate_orders(n_orders, n_items, 2463534242u);
  inv::OrderStats s = inv::process_orders(w, orders);
  std::printf("cpp-inventory: %u order lines: %u served, %u out of stock, %u unknown item; "
              "revenue %.2f, stock left %.2f\n",
              s.lines, s.served, s.backordered, s.unknown, s.revenue_cents / 100.0,
              w.stock_value_cents() / 100.0);
  return 0;
}
