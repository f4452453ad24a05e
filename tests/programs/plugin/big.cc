// big.cc - a large C++ unit (<regex>, <map>, <string>, exceptions, virtual
// calls) for the robustness test: compiles at every -O level with -g -fPIC
// -fnon-call-exceptions and runs correctly.
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};
struct Square : Shape {
  double s;
  explicit Square(double v) : s(v) {}
  double area() const override { return s * s; }
};
struct Circle : Shape {
  double r;
  explicit Circle(double v) : r(v) {}
  double area() const override { return 3.0 * r * r; }
};

static std::map<std::string, int> count_words(const std::string &text)
{
  std::map<std::string, int> counts;
  std::regex word("[a-z]+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it)
    counts[it->str()]++;
  return counts;
}

__attribute__((noinline)) static int parse(const std::string &s)
{
  if (s.empty())
    throw std::invalid_argument("empty");
  return std::stoi(s);
}

int main()
{
  auto counts = count_words("the cat and the hat and the bat");
  std::vector<std::unique_ptr<Shape>> shapes;
  shapes.emplace_back(new Square(2));
  shapes.emplace_back(new Circle(1));
  double total = 0;
  for (auto &s : shapes)
    total += s->area();
  int bad = 0;
  for (const char *s : { "12", "", "x" }) {
    try {
      parse(s);
    } catch (const std::exception &) {
      bad++;
    }
  }
  std::printf("%d %d %g %d\n", counts["the"], counts["and"], total, bad);
  return counts["the"] == 3 && bad == 2 ? 0 : 1;
}
