/* plugin_leaf.c - built without the plugin into plugin_own's library. */
int plugin_leaf(int x) { return x + 3; }
