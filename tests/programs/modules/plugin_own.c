/* plugin_own.c - a library opened RTLD_LOCAL (callees.c), built with the
 * plugin: plugin_entry calls plugin_leaf, a function of the same library
 * built without the plugin (plugin_leaf.c), which no object in the global
 * scope defines: the call binds to this library. */
int plugin_leaf(int x);
int plugin_entry(int x) { return plugin_leaf(x) + 1; }
