// msg.hpp - the shape that makes GCC put a local clone into a COMDAT group:
// an inline template that builds a message with a stringstream and has an
// unused defaulted parameter (IPA-SRA drops it and makes a local .isra
// clone), called only from another template that is not inlined, so the
// clone joins that template's group.  Every unit that includes this makes
// its own copy of both groups; the linker keeps one.
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
extern int messages_made; /* the program's own count of bad_key calls */
template <typename T>
inline const std::string bad_key(const T &key,
                                 typename std::enable_if<std::is_integral<T>::value>::type * = 0) {
  std::stringstream ss;
  ss << "bad key: " << key;
  messages_made++;
  return ss.str();
}
struct KeyError : std::runtime_error {
  template <typename T> explicit KeyError(const T &key) : std::runtime_error(bad_key(key)) {}
};
template <typename T> __attribute__((noinline)) int lookup(const T &key, int size) {
  if (key < 0 || key >= size)
    throw KeyError(key);
  return (int)key * 2;
}
