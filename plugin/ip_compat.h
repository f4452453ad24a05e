// ip_compat.h - the one place where the GCC versions the plugin supports
// (11 to 16) differ: small inline wrappers keyed on the major version of the
// GCC whose headers the plugin is built with, so the passes call one name
// everywhere.  Included by ip_gcc.h after GCC's headers.
#ifndef IP_COMPAT_H
#define IP_COMPAT_H

/* BUILDING_GCC_MAJOR, as GCCPLUGIN_VERSION_MAJOR in plugin-version.h (which
 * defines variables and is included once, by ip_plugin.cc). */
#include "bversion.h"
#define IP_GCC_MAJOR BUILDING_GCC_MAJOR

#if IP_GCC_MAJOR < 11 || IP_GCC_MAJOR > 16
#error "inclprof: the plugin supports GCC 11 to 16"
#endif

/* The last statement of BB that is not a debug statement, or NULL
 * (GCC 14 removed last_stmt; the iterator form exists in every version). */
static inline gimple *ip_last_stmt(basic_block bb)
{
  return gsi_stmt(gsi_last_nondebug_bb(bb));
}

/* The EH edge from STMT to the landing pad it was just attached to (GCC 14
 * renamed make_eh_edges, which makes that single edge, to make_eh_edge). */
static inline void ip_make_eh_edge(gimple *stmt)
{
#if IP_GCC_MAJOR >= 14
  make_eh_edge(stmt);
#else
  make_eh_edges(stmt);
#endif
}

/* Marks FN's back edges (EDGE_DFS_BACK); true when there is one.  Before
 * GCC 12 it works on cfun only: FN must be cfun there. */
static inline bool ip_mark_dfs_back_edges(function *fn)
{
#if IP_GCC_MAJOR >= 12
  return mark_dfs_back_edges(fn);
#else
  gcc_assert(fn == cfun);
  return mark_dfs_back_edges();
#endif
}

/* Does STR start with PREFIX?  (GCC 12 added startswith to system.h.) */
static inline bool ip_startswith(const char *str, const char *prefix)
{
  return strncmp(str, prefix, strlen(prefix)) == 0;
}

#endif
