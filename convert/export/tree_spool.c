/* export/tree_spool.c - threads' call trees in a temporary file (see
 * export/tree_spool.h).  A record per thread: its session index, then its
 * nodes, samples by address and call lines, each array after its length. */
#include "export/tree_spool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "export/call_spool.h"
#include "util/util.h"

/* Where no file can be made in the directory (one missing or not
 * writable), the same in memory: the exports kept every tree there before
 * they spooled them, and did not fail for want of a temporary file. */
FILE *ip_temp_stream(void) {
  int fd = ip_temp_fd();
  if (fd < 0)
    fd = memfd_create("inclprof-spool", MFD_CLOEXEC);
  FILE *f = fd >= 0 ? fdopen(fd, "w+b") : NULL;
  if (!f && fd >= 0)
    close(fd);
  return f;
}

void ip_tree_spool_open(ip_tree_spool *sp) {
  memset(sp, 0, sizeof *sp);
  sp->f = ip_temp_stream();
}

static void free_cur(ip_tree_spool *sp) {
  free(sp->cur.nodes);
  free(sp->cur.pcs);
  free(sp->cur.sites);
  memset(&sp->cur, 0, sizeof sp->cur);
}

void ip_tree_spool_close(ip_tree_spool *sp) {
  if (sp->f)
    fclose(sp->f);
  free_cur(sp);
  memset(sp, 0, sizeof *sp);
}

static void fail(ip_tree_spool *sp) {
  if (sp->f)
    fclose(sp->f);
  sp->f = NULL;
}

static void put_array(ip_tree_spool *sp, const void *v, size_t n, size_t size) {
  uint64_t len = n;
  if (sp->f && (fwrite(&len, sizeof len, 1, sp->f) != 1 || (n && fwrite(v, size, n, sp->f) != n)))
    fail(sp);
}

void ip_tree_spool_put(ip_tree_spool *sp, const ip_thread *t, size_t index) {
  uint64_t i = index;
  if (sp->f && (fseek(sp->f, 0, SEEK_END) || fwrite(&i, sizeof i, 1, sp->f) != 1))
    fail(sp); /* at the end: a thread may have been read back since */
  put_array(sp, t->nodes, t->n_nodes, sizeof *t->nodes);
  put_array(sp, t->pcs, t->n_pcs, sizeof *t->pcs);
  put_array(sp, t->sites, t->n_sites, sizeof *t->sites);
  sp->n++;
}

int ip_tree_spool_rewind(ip_tree_spool *sp) {
  if (sp->f && (fflush(sp->f) || fseek(sp->f, 0, SEEK_SET)))
    fail(sp);
  return sp->f ? 0 : -1;
}

/* An array written by put_array, into *v (malloc'ed); its length, or
 * SIZE_MAX when it could not be read. */
static size_t get_array(ip_tree_spool *sp, void **v, size_t size) {
  uint64_t len;
  if (!sp->f || fread(&len, sizeof len, 1, sp->f) != 1)
    return SIZE_MAX;
  *v = ip_must_realloc(NULL, len ? (size_t)len : 1, size);
  if (len && fread(*v, size, (size_t)len, sp->f) != len)
    return SIZE_MAX;
  return (size_t)len;
}

const ip_thread *ip_tree_spool_next(ip_tree_spool *sp, const ip_session *s) {
  free_cur(sp);
  uint64_t i;
  if (!sp->f)
    return NULL;
  if (fread(&i, sizeof i, 1, sp->f) != 1) {
    if (!feof(sp->f))
      fail(sp);
    return NULL;
  }
  if (i >= s->n_threads) {
    fail(sp);
    return NULL;
  }
  sp->cur = s->threads[i];
  sp->cur.nodes = NULL, sp->cur.pcs = NULL, sp->cur.sites = NULL;
  size_t n_nodes = get_array(sp, (void **)&sp->cur.nodes, sizeof *sp->cur.nodes);
  size_t n_pcs = get_array(sp, (void **)&sp->cur.pcs, sizeof *sp->cur.pcs);
  size_t n_sites = get_array(sp, (void **)&sp->cur.sites, sizeof *sp->cur.sites);
  if (n_nodes == SIZE_MAX || n_pcs == SIZE_MAX || n_sites == SIZE_MAX) {
    fail(sp);
    free_cur(sp);
    return NULL;
  }
  sp->cur.n_nodes = n_nodes;
  sp->cur.n_pcs = sp->cur.cap_pcs = n_pcs;
  sp->cur.n_sites = sp->cur.cap_sites = n_sites;
  return &sp->cur;
}
