// main.cpp - calls each unit with keys in and out of range and prints the
// program's own count of messages built.
#include <cstdio>
int messages_made;
int unit1(int), unit2(int), unit3(int);
int main() {
  int s = 0;
  for (int k = -1; k < 6; k++)
    s += unit1(k) + unit2(k) + unit3(k);
  std::printf("sum %d, messages %d\n", s, messages_made);
  return 0;
}
