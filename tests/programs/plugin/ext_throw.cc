// ext_throw.cc - compiled WITHOUT the plugin: an external function that throws.
void ext_throw(int x)
{
  if (x)
    throw 42;
}
