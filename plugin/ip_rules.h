/* ip_rules.h - adding and freeing the include/exclude rules of an ip_config
 * (matching is ip_config_select in ip_options.h). */
#ifndef IP_RULES_H
#define IP_RULES_H

#include "ip_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Append a rule; PATTERN is a glob or "re:REGEX".  ORIGIN is kept for reports
 * and messages.  Returns 0, or -1 with a one-line message in ERR. */
int ip_rules_add(struct ip_config *cfg, int include, enum ip_rule_target target,
                 const char *pattern, const char *origin, char *err, size_t errlen);

void ip_rules_free(struct ip_config *cfg);

#ifdef __cplusplus
}
#endif

#endif
