// structors_lib.h - the class of structors_lib.cc.  Its virtual base makes
// GCC emit the complete-object and base-object constructors apart.
struct Root {
  int root = 7;
};

struct Base : virtual Root {
  Base();
  virtual ~Base();
  int get() const;
  int value;
};

int twice(int x);
