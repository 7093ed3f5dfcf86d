/* The on-disk kernel cache: compiled binaries keyed by a hash.
 *
 * Directory: $EMBER_CACHE_DIR, else $XDG_CACHE_HOME/ember/kernels, else
 * ~/.cache/ember/kernels, created 0700.  The key hashes everything that
 * changes the binary (source, options, compiler version, arch, Ember
 * version); the caller passes those as parts.  An entry is
 *   "EMKC0001" | u64 payload bytes | u64 FNV-1a checksum | payload
 * written to a temporary file and renamed into place, so readers see a
 * whole entry or none; a short or corrupt entry reads as a miss (and the
 * rebuilt binary replaces it).  Failures to write are not errors: the cache
 * is an optimisation.
 */
#ifndef EM_DISKCACHE_H
#define EM_DISKCACHE_H

#include "core/core.h"

/* The cache directory (created on first use); false if unusable. */
EM_API bool em_diskcache_dir(char *buf, size_t len);
/* The file name for a key made of nparts strings. */
EM_API void em_diskcache_name(int nparts, const char *const *parts, char *name, size_t len);
/* Read an entry: *data (malloc'ed) and *n on a hit; false on a miss. */
EM_API bool em_diskcache_get(const char *name, void **data, size_t *n);
/* Store an entry atomically; false if it could not be written. */
EM_API bool em_diskcache_put(const char *name, const void *data, size_t n);
/* 64-bit FNV-1a of n bytes continuing from h (EM_FNV_BASIS to start). */
#define EM_FNV_BASIS 0xcbf29ce484222325ULL
EM_API uint64_t em_fnv1a(uint64_t h, const void *data, size_t n);

#endif
