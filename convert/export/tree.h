/* export/tree.h - the call trees an export writes: each selected thread's
 * own tree, or (--merge-threads) one tree merging the selected threads' call
 * paths, plus a depth-first walk that hands writers each path from the
 * outermost frame down. */
#ifndef INCLPROF_EXPORT_TREE_H
#define INCLPROF_EXPORT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef struct ip_tree_view {
  const ip_node *nodes; /* nodes[0] is the root */
  size_t n_nodes;
  const ip_thread *thread; /* NULL for a merged tree */
} ip_tree_view;

typedef struct ip_export_trees {
  ip_tree_view *views;
  size_t n_views;
  ip_node *merged; /* the merged tree's nodes (owned), or NULL */
} ip_export_trees;

/* Views of the threads sel selects (all when sel is NULL), merged into one
 * when merge is set (no view at all when nothing is selected). */
void ip_export_trees_build(ip_export_trees *tr, const ip_session *s, int merge,
                           const ip_selection *sel);
void ip_export_trees_free(ip_export_trees *tr);

/* A merged tree built one thread at a time: the threads added in session
 * order give the nodes, in the same order, of ip_export_trees_build's merged
 * tree, so a load can add each file's threads and free their trees. */
typedef struct ip_tree_merger {
  ip_node *nodes;
  size_t n, cap;
  uint32_t *slots; /* node index + 1 by (parent, func), 0 = empty */
  size_t n_slots;
  uint32_t *mapped; /* while adding: the merged node of each frame of the path */
  size_t cap_mapped;
  size_t added;  /* threads added */
  uint32_t *map; /* while adding with a map: the merged node of each node of the view */
} ip_tree_merger;
void ip_tree_merger_init(ip_tree_merger *m);
void ip_tree_merger_add(ip_tree_merger *m, const ip_tree_view *v);
/* ip_tree_merger_add, and map[k] (v->n_nodes of them) the merged node of
 * v's node k (0 for the root, IP_NO_NODE for a node the walk does not reach). */
void ip_tree_merger_add_mapped(ip_tree_merger *m, const ip_tree_view *v, uint32_t *map);
/* tr becomes the merged tree's one view (none when no thread was added) and
 * owns its nodes; m is left empty. */
void ip_tree_merger_finish(ip_tree_merger *m, ip_export_trees *tr);

/* The node of view v that is call path `node` of thread t (a thread v
 * shows): node itself in t's own view, the path of the same functions in a
 * merged one; IP_NO_NODE when v has no such path. */
uint32_t ip_tree_view_node(const ip_tree_view *v, const ip_thread *t, uint32_t node);

/* How exports name thread t: "thread TID (NAME)", or "thread TID" without a name. */
void ip_thread_label(const ip_thread *t, char *buf, size_t len);

/* Calls fn for every node but the root, parents before children; path[0..depth-1]
 * are node indices from the outermost frame to the node itself. */
typedef void (*ip_path_fn)(void *ctx, const ip_tree_view *v, const uint32_t *path, size_t depth);
void ip_tree_walk(const ip_tree_view *v, ip_path_fn fn, void *ctx);

#endif
