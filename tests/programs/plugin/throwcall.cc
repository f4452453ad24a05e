// throwcall.cc - calls to an uninstrumented function that returns, then throws.
void ext_throw(int x);
__attribute__((noinline)) int caller(int x)
{
  try {
    ext_throw(x);
  } catch (int) {
    return 1;
  }
  return 0;
}
int main() { return caller(0) + caller(1) == 1 ? 0 : 1; }
