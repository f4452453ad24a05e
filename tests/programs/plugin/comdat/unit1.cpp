// unit1.cpp - one of three units instantiating the same templates.
#include "msg.hpp"
int unit1(int k) {
  int s = 0;
  try { s += lookup<int>(k, 4); } catch (const KeyError &) { s -= 1; }
  try { s += lookup<long>(k, 3); } catch (const KeyError &) { s -= 1; }
  return s;
}
