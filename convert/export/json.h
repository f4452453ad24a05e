/* export/json.h - writing JSON string literals: quotes, backslashes and
 * control characters escaped, invalid UTF-8 replaced by U+FFFD, so any
 * function name (C++ names hold quotes, <>, commas) yields valid JSON. */
#ifndef INCLPROF_EXPORT_JSON_H
#define INCLPROF_EXPORT_JSON_H

#include <stdio.h>

/* Writes s (NULL = "") as a quoted JSON string. */
void ip_json_string(FILE *out, const char *s);

#endif
